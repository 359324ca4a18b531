"""An interrupted ``--force`` resumed without ``--force`` computes again the runs the
force had not redone, instead of reusing their records from before the change (hunt 8,
A3: a data file read by the user's stream changed, ``--force`` interrupted after two of
four seeds, the resume said "0 run(s) computed, 4 already complete" and printed
89.05 ± 0.40, two seeds of each file, exit 0; the right answer is 88.70 ± 0.00)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from streamlearn.atomic import OutputError
from streamlearn.config import load_config
from streamlearn.evaluation import records, runner
from streamlearn.evaluation.runner import run_experiment
from streamlearn.evaluation.runs import Progress
from streamlearn.reporting.report import status_lines
from streamlearn.reporting.summary import summarize
from tests.cli_helpers import run_cli, user_module

# a stream whose labels come from a file the digest does not see (no content_sha256)
STREAM = '''
import numpy as np
from streamlearn.base import Stream


class FromFile(Stream):
    task = "classification"
    natural_order = True

    def __init__(self, seed: int = 0):
        self.seed = seed

    def _load(self):
        with open("labels.txt") as fh:
            y = np.array([int(c) for c in fh.read().split()])
        return np.zeros((y.size, 2)), y
'''

SEEDS = [0, 1, 2, 3]


@pytest.fixture
def folder(tmp_path, monkeypatch):
    (tmp_path / "labels.txt").write_text(" ".join(["0"] * 60))
    cfg = {"name": "forced", "seeds": SEEDS,
           "streams": [{"name": "forced_stream:FromFile", "label": "F"}],
           "algorithms": [{"name": "majority_class", "label": "M"}], "metrics": ["oca"],
           "evaluation": {"checkpoints": 4},
           "outputs": {"dir": str(tmp_path / "out"), "plots": []}}
    (tmp_path / "cfg.yaml").write_text(yaml.safe_dump(cfg))
    with user_module(tmp_path, monkeypatch, "forced_stream", STREAM):
        yield tmp_path


class _StopAfter(Progress):
    """Ctrl-C once ``n`` runs are recorded."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.notes: list[str] = []

    def note(self, text: str) -> None:
        self.notes.append(text)

    def run_finished(self, outcome) -> None:
        self.n -= 1
        if self.n == 0:
            raise KeyboardInterrupt


def _oca(out: Path) -> dict[int, float]:
    return {json.loads(p.read_text())["seed"]: json.loads(p.read_text())["metrics"]["oca"]
            for p in (out / "runs").glob("*.json")}


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_resume_redoes_the_runs_an_interrupted_force_left(folder, jobs):
    if jobs > 1:  # loky's idle workers of an earlier test have another working directory
        from joblib.externals.loky import get_reusable_executor

        get_reusable_executor().shutdown(wait=True)
    cfg = load_config(folder / "cfg.yaml")
    out = folder / "out"
    run_experiment(cfg, out)
    assert set(_oca(out).values()) == {1.0}  # all labels 0: the majority is always right
    (folder / "labels.txt").write_text(" ".join(["0", "1"] * 30))  # changed, same digest
    with pytest.raises(KeyboardInterrupt):
        run_experiment(cfg, out, force=True, jobs=jobs, progress=_StopAfter(2 if jobs == 1
                                                                            else 1))
    left = records.ForcedRuns.read(out).run_ids
    assert 0 < len(left) < len(SEEDS)
    lines = status_lines(summarize(out))  # `streamlearn report` names them meanwhile
    assert any(f"{len(left)} run(s) in the tables still have their records from before"
               in line for line in lines)
    progress = _StopAfter(-1)
    result = run_experiment(cfg, out, jobs=jobs, progress=progress)
    assert sorted(o.run_id for o in result.outcomes if o.status == "ok") == sorted(left)
    assert result.n_skipped == len(SEEDS) - len(left)
    assert progress.notes and f"{len(left)} run(s) that an interrupted `--force`" in \
        progress.notes[0]
    new = _oca(out)
    assert len(set(new.values())) == 1 and new[0] < 1.0  # every seed on the new file
    assert all(json.loads(p.read_text())["status"] == "ok" for p in (out / "runs").iterdir())
    assert not (out / records.FORCE_NAME).exists()
    assert run_experiment(cfg, out).n_skipped == len(SEEDS)


def test_the_interrupt_message_says_what_the_next_run_does(folder, monkeypatch, capsys):
    out = folder / "out"
    records.ForcedRuns(out, ["F__M__seed2", "F__M__seed3"]).save()

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(runner, "run_experiment", interrupted)
    code, text = run_cli(["run", "cfg.yaml", "--quiet"], capsys)
    text = " ".join(text.split())
    assert code == 130
    assert "2 run(s) that --force was to recompute still have their records from before" \
        in text and "computes them again" in text


def test_a_force_that_fails_before_its_first_record_leaves_the_folder_as_it_was(
        folder, monkeypatch):
    cfg = load_config(folder / "cfg.yaml")
    out = folder / "out"
    run_experiment(cfg, out)

    def full(*args, **kwargs):
        raise OutputError("Cannot write: the disk is full")

    monkeypatch.setattr(runner, "execute_run", full)
    with pytest.raises(OutputError):
        run_experiment(cfg, out, force=True)
    assert not (out / records.FORCE_NAME).exists()


def test_an_unreadable_list_is_a_user_error_naming_it(folder, capsys):
    out = folder / "out"
    out.mkdir()
    (out / records.FORCE_NAME).write_text("{not json")
    code, text = run_cli(["run", "cfg.yaml", "--quiet"], capsys)
    assert code != 0 and records.FORCE_NAME in "".join(text.split())
    assert "Traceback" not in text and not (out / "runs").exists()
