"""``streamlearn tables forks``: the FORKS tables from run records. A table is written only
from complete records (a fresh clone, whose records are git-ignored, must not overwrite a
committed table with blanks), and small hand-made records give a fixed, checked text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from streamlearn.reporting.papers import forks
from tests.cli_helpers import run_cli


def _record(root: Path, exp: str, label: str, seed: int, rate: float, *, n_sv: int = 40,
            seconds: float = 0.5, learner: str = "PROSNKONS(ridge=1, sigma=128.0)",
            **extra: object) -> None:
    d = root / exp / "runs"
    d.mkdir(parents=True, exist_ok=True)
    (d / f"{label}__{seed}.json").write_text(json.dumps({
        "status": "ok", "complete": True, "algorithm": label, "learner": learner,
        "metrics": {"mistake_rate": rate, **extra}, "timing": {"total_seconds": seconds},
        "learner_counters": {"n_sv_": n_sv}}))


def _pnk_ridge_records(root: Path, datasets: list[str]) -> None:
    for ds in datasets:
        for r in forks.PNK_RIDGE:
            for seed, rate in enumerate((0.30, 0.32)):
                _record(root, f"pnk_ridge/{ds}", f"PROS-N-KONS ridge={r}", seed, rate,
                        n_sv=40 + seed)


def test_missing_records_leave_the_committed_table(tmp_path, capsys):
    committed = "# committed table\n"
    (tmp_path / "pnk_ridge.md").write_text(committed)
    _pnk_ridge_records(tmp_path, forks.DS[:-1])  # the last dataset has no records
    rc, out = run_cli(["tables", "forks", str(tmp_path), "--only", "pnk_ridge.md"], capsys)
    assert rc == 1
    assert (tmp_path / "pnk_ridge.md").read_text() == committed
    assert f"not written: pnk_ridge.md (no run records in {tmp_path}/pnk_ridge/" \
           f"{forks.DS[-1]})" in " ".join(out.split())


def test_without_only_a_missing_output_is_not_an_error(tmp_path, capsys):
    _pnk_ridge_records(tmp_path, forks.DS)
    rc, out = run_cli(["tables", "forks", str(tmp_path)], capsys)
    assert rc == 0, out
    assert (tmp_path / "pnk_ridge.md").is_file()
    assert not (tmp_path / "table1.md").exists()
    assert out.count("not written:") == len(forks.BUILDERS) - 1


def test_complete_records_write_the_table(tmp_path, capsys):
    _pnk_ridge_records(tmp_path, forks.DS)
    rc, out = run_cli(["tables", "forks", str(tmp_path), "--only", "pnk_ridge.md"], capsys)
    assert rc == 0, out
    assert f"wrote {tmp_path / 'pnk_ridge.md'}" in out.replace("\n", "")
    text = (tmp_path / "pnk_ridge.md").read_text()
    # mean 31.00 %, sample SD 1.41, mean dictionary size 40.5 -> "40" (round half to even)
    assert "| german | 7 | 31.00 ± 1.41 (n=2) [40] |" in text
    assert text.count("31.00 ± 1.41 (n=2)") == len(forks.DS) * len(forks.PNK_RIDGE)
    assert "`streamlearn tables forks --only pnk_ridge.md`" in text
    assert text.endswith("| 9.455 |\n")


@pytest.mark.parametrize("only", ["nope.md", "table1.md,nope.md"])
def test_unknown_output_is_refused(tmp_path, capsys, only):
    rc, out = run_cli(["tables", "forks", str(tmp_path), "--only", only], capsys)
    assert rc == 2
    assert "unknown output(s): nope.md; known: table1.md, tables2_3.md" in out
    assert list(tmp_path.iterdir()) == []


def test_a_missing_results_folder_is_a_user_error(tmp_path, capsys):
    rc, out = run_cli(["tables", "forks", str(tmp_path / "nowhere")], capsys)
    assert rc == 2 and "is not a directory" in " ".join(out.split())
    assert "Traceback" not in out


def test_fig2_text_is_fixed(tmp_path):
    for kind in ("FORKS", "SVD"):
        for theta, rates in (("0.3", (0.10, 0.12)), ("0.1", (0.20, 0.20))):
            for seed, rate in enumerate(rates):
                _record(tmp_path, "fig2", f"{kind} theta={theta}", seed, rate,
                        seconds=1.0 + seed)
    text = forks.fig2(tmp_path)
    assert text == (
        "# FORKS Fig. 2 (codrna, update rate θ; TISVD vs exact rank-k SVD)\n\n"
        "| variant | θ | mistake rate (%) | time (s) | runs |\n"
        "|---|---|---|---|---|\n"
        "| FORKS | 0.1 | 20.00 ± 0.00 | 1.500 | 2 |\n"
        "| FORKS | 0.3 | 11.00 ± 1.41 | 1.500 | 2 |\n"
        "| SVD | 0.1 | 20.00 ± 0.00 | 1.500 | 2 |\n"
        "| SVD | 0.3 | 11.00 ± 1.41 | 1.500 | 2 |\n\n"
        "![Fig. 2](fig2.png)\n")
    assert (tmp_path / "fig2.png").stat().st_size > 0


def test_sensitivity_text_is_fixed(tmp_path):
    for seed, rate in enumerate((0.30, 0.32, 0.34)):
        _record(tmp_path, "sensitivity/german", "FORKS C=10", seed, rate)
    _record(tmp_path, "sensitivity/german", "KOGD (no budget)", 0, 0.25)
    _record(tmp_path, "scaling/german", "FORKS minmax sigma=2^1", 0, 0.40)
    _record(tmp_path, "scaling/german", "FORKS minmax sigma=2^2", 0, 0.35)
    _record(tmp_path, "scaling/codrna", "FORKS minmax sigma=2^0", 0, 0.15)
    lines = forks.sensitivity(tmp_path).split("\n")
    assert lines[4:] == [
        "## german", "", "| variant | mistake rate (%) |", "|---|---|",
        "| FORKS C=10 | 32.00 ± 2.00 (n=3) |",
        "| KOGD (no budget) | 25.00 ± nan (n=1) |",
        "| min-max scaling, best sigma=2^2 | 35.00 ± nan (n=1) |", "",
        "## codrna", "", "| variant | mistake rate (%) |", "|---|---|",
        "| min-max scaling, best sigma=2^0 | 15.00 ± nan (n=1) |", ""]


def test_table1_section_and_regret_are_fixed(tmp_path, monkeypatch):
    monkeypatch.setattr(forks, "minority_rate", lambda ds: "30.000")
    (tmp_path / "sigma").mkdir()
    (tmp_path / "sigma" / "forks_table1_german.csv").write_text(
        "algorithm,log2_sigma,mistake_rate_mean\nFORKS,2,27.0\nFORKS,3,timeout\n"
        "FORKS,4,30.5\n")
    for seed, (rate, regret) in enumerate(((0.26, 0.5), (0.28, 0.7))):
        _record(tmp_path, "table1/german", "FORKS", seed, rate, seconds=0.01 * (seed + 1),
                learner="FORKS(sigma=4.0)", regret_hinge=regret)
    text = forks.table1(tmp_path)
    assert ("| FORKS | 27.00 ± 1.41 (n=2) | 26.425 ± 0.562 | +0.57 | 0.015 | 0.008 | 2 "
            "| 2 (27.00) |") in text
    assert "| RBP | not run | 38.830 ± 0.152 | | | 0.003 | |  |" in text
    assert "Minority class: 30.000 % of the stream" in text
    assert "## svmguide3\n\nnot run here\n" in text
    assert "| german | — | — | — | — | — | — | — | — | 0.600 ± 0.141 |" in text


@pytest.mark.datasets
def test_minority_shares_are_those_of_the_data_files(data_dir, monkeypatch):
    """table1.md prints forks.MINORITY (so that it regenerates from the records alone);
    it must be the minority-class share of each data file."""
    monkeypatch.setenv("STREAMLEARN_DATA", str(data_dir))
    for ds, share in forks.MINORITY.items():
        assert forks.minority_of_data(ds) == pytest.approx(share, abs=5e-7), ds
