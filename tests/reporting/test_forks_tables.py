"""streamlearn.reporting.forks_tables writes a results table only from complete run
records: a fresh clone (records are git-ignored) must not overwrite a committed table
with blanks."""

from __future__ import annotations

import importlib
import json
from pathlib import Path

import pytest


@pytest.fixture
def tables(tmp_path, monkeypatch):
    mod = importlib.import_module("streamlearn.reporting.forks_tables")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(mod, "ROOT", tmp_path / "results" / "forks")
    (tmp_path / "results" / "forks").mkdir(parents=True)
    return mod


def _record(root: Path, exp: str, label: str, seed: int, rate: float, n_sv: int) -> None:
    d = root / exp / "runs"
    d.mkdir(parents=True, exist_ok=True)
    (d / f"{label}__{seed}.json").write_text(json.dumps({
        "status": "ok", "complete": True, "algorithm": label,
        "learner": "PROSNKONS(ridge=1, sigma=128.0)",
        "metrics": {"mistake_rate": rate}, "timing": {"total_seconds": 0.5},
        "learner_counters": {"n_sv_": n_sv}}))


def test_missing_records_leave_the_committed_table(tables, capsys):
    root = tables.ROOT
    committed = "# committed table\n"
    (root / "pnk_ridge.md").write_text(committed)
    for ds in tables.DS[:-1]:  # the last dataset has no records
        for r in tables.PNK_RIDGE:
            for seed in range(2):
                _record(root, f"pnk_ridge/{ds}", f"PROS-N-KONS ridge={r}", seed, 0.3, 40)
    assert tables.main(["--only", "pnk_ridge.md"]) == 1
    assert (root / "pnk_ridge.md").read_text() == committed
    assert f"pnk_ridge/{tables.DS[-1]}" in capsys.readouterr().out


def test_complete_records_write_the_table(tables):
    root = tables.ROOT
    for ds in tables.DS:
        for r in tables.PNK_RIDGE:
            for seed, rate in enumerate((0.30, 0.32)):
                _record(root, f"pnk_ridge/{ds}", f"PROS-N-KONS ridge={r}", seed, rate, 40 + seed)
    assert tables.main(["--only", "pnk_ridge.md"]) == 0
    text = (root / "pnk_ridge.md").read_text()
    # mean 31.00 %, sample SD 1.41, mean dictionary size 40.5 -> "40" (round half to even)
    assert "| german | 7 | 31.00 ± 1.41 (n=2) [40] |" in text
    assert text.count("31.00 ± 1.41 (n=2)") == len(tables.DS) * len(tables.PNK_RIDGE)


def test_unknown_output_is_refused(tables):
    assert tables.main(["--only", "nope.md"]) == 2
