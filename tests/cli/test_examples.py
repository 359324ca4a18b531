"""The quickstart and examples/my_learner, as a newcomer runs them."""

from __future__ import annotations

import io
import json
import re
import shutil
import sys
from pathlib import Path

import pytest
import yaml
from rich.cells import cell_len
from rich.console import Console

from streamlearn import components
from streamlearn.config import load_config
from streamlearn.reporting import tables
from streamlearn.reporting.summary import summarize
from tests.cli_helpers import cli_exit_code as _cli

ROOT = Path(__file__).resolve().parents[2]


def test_quickstart_puts_online_bls_beside_the_baselines_in_80_columns(tmp_path, capsys):
    cfg = load_config(ROOT / "configs" / "quickstart.yaml")
    names = [a.name for a in cfg.algorithms]
    assert {"online_bls_fast", "online_bls_ada_fast", "hoeffding_tree"} <= set(names)
    assert {s.name for s in cfg.streams} == {"sea", "hyperplane"}
    assert not any(s.needs_data for s in (
        __import__("streamlearn.components").components.get_stream(s.name) for s in cfg.streams))
    # the quickstart itself, on 500 samples and two seeds (so cells are "mean ± SD")
    raw = yaml.safe_load((ROOT / "configs" / "quickstart.yaml").read_text())
    raw["smoke"] = {"max_samples": 500, "repeats": 2}
    (tmp_path / "quick.yaml").write_text(yaml.safe_dump(raw))
    assert _cli(["run", str(tmp_path / "quick.yaml"), "--smoke", "--quiet",
                 "--out", str(tmp_path / "q")]) == 0
    capsys.readouterr()
    summary = summarize(tmp_path / "q")
    console = Console(width=80, record=True, file=io.StringIO())
    for r in tables.rich_tables(summary, width=80):
        console.print(r)
    lines = console.export_text().splitlines()
    assert max(cell_len(line) for line in lines) <= 80
    text = "\n".join(lines)
    assert "Narrow terminal" not in text  # a row per algorithm, not the stacked form
    for label in ("Online-BLS", "Online-BLS Ada", "River HT", "River PA", "River Perc."):
        row = next(ln for ln in lines if ln.lstrip("│ ").startswith(label + " "))
        # OCA and µs/sample (mean ± SD) on the algorithm's own line
        assert len(re.findall(r"\d+\.\d+ ± \d+\.\d+", row)) >= 2, row


@pytest.fixture
def example_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of examples/my_learner as a user's working directory."""
    work = tmp_path / "my_learner"
    shutil.copytree(ROOT / "examples" / "my_learner", work,
                    ignore=shutil.ignore_patterns("results", "__pycache__"))
    monkeypatch.chdir(work)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(work))])
    from joblib.externals.loky import get_reusable_executor

    get_reusable_executor().shutdown(wait=True)
    yield work
    sys.modules.pop("my_learner", None)
    for key in [k for k in components._resolved if "my_learner:" in k[1]]:
        del components._resolved[key]


def test_example_learner_runs_from_its_own_directory(example_dir, capsys):
    assert len((example_dir / "my_learner.py").read_text().splitlines()) <= 30
    assert _cli(["check", "my_learner:SoftmaxSGD"]) == 0
    assert _cli(["run", "config.yaml", "--smoke", "--quiet"]) == 0
    out = capsys.readouterr().out
    for label in ("Mine (SGD)", "Online-BLS", "River HT", "River LogReg"):
        assert label in out
    runs = list((example_dir / "smoke" / "results" / "runs").glob("*.json"))
    recs = {json.loads(p.read_text())["algorithm"]: json.loads(p.read_text()) for p in runs}
    assert {r["status"] for r in recs.values()} == {"ok"}
    assert recs["Mine (SGD)"]["learner"].startswith("SoftmaxSGD(lr=0.5")
    # three states, 65/35-ish majority at most: the learner learns the stream
    assert recs["Mine (SGD)"]["metrics"]["oca"] > 0.75


def test_example_csv_with_another_hash_is_refused(example_dir, capsys):
    data = example_dir / "sensors.csv"
    data.write_text(data.read_text().replace("idle", "idel", 1))
    assert _cli(["run", "config.yaml", "--quiet"]) == 3
    err = " ".join(capsys.readouterr().err.split())
    assert "does not have the SHA-256 the config declares" in err
    assert not (example_dir / "results").exists()


def test_example_config_names_the_shipped_csv_hash():
    cfg = yaml.safe_load((ROOT / "examples" / "my_learner" / "config.yaml").read_text())
    import hashlib

    digest = hashlib.sha256((ROOT / "examples" / "my_learner" / "sensors.csv").read_bytes())
    assert cfg["streams"][0]["params"]["sha256"] == digest.hexdigest()
