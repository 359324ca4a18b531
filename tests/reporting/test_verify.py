"""``make verify-results`` (scripts/verify_results.py, streamlearn/reporting/verify.py): the
committed tables of a results tree regenerated from its committed records archives; a hand
edit of a cell fails, naming the file and the cell; a folder without records is reported
with its cost, never passed in silence."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from streamlearn.config import parse_config
from streamlearn.evaluation import record_archive
from streamlearn.evaluation.runner import run_experiment
from streamlearn.reporting.report import build_report
from streamlearn.reporting.verify import (
    NOT_COMMITTED,
    csv_differences,
    markdown_differences,
    verify_results,
)

ROOT = Path(__file__).resolve().parents[2]
TINY = {
    "name": "tiny",
    "repeats": 2,
    "streams": [{"name": "sea", "label": "SEA", "max_samples": 200}],
    "algorithms": [{"name": "perceptron", "label": "Perceptron"},
                   {"name": "rls", "label": "RLS", "params": {"lam": 1.0}}],
    "metrics": ["oca"],
    "evaluation": {"checkpoints": 5},
    "reference": {"source": "paper", "values": {"SEA": {"RLS": {"oca": 80.0}}}},
}


@pytest.fixture(scope="module")
def archived(tmp_path_factory) -> Path:
    """A results tree: ``exp`` with its tables and archive (no runs/), ``slow`` with tables
    only, listed in records_not_committed.json."""
    results = tmp_path_factory.mktemp("tree") / "results"
    out = results / "exp"
    cfg = parse_config({**TINY, "outputs": {"dir": str(out), "tables": ["markdown", "csv"],
                                            "plots": []}})
    assert not run_experiment(cfg, out).failed
    build_report(out)
    record_archive.pack(out)
    shutil.rmtree(out / "runs")
    (results / "slow").mkdir()
    for name in ("experiment.json", "summary.md", "summary.csv"):
        shutil.copyfile(out / name, results / "slow" / name)
    (results / NOT_COMMITTED).write_text(json.dumps(
        {"folders": {"slow": {"cpu_hours": 3.5, "why": "O(m^3) baselines"}}}))
    return results


@pytest.fixture
def tree(archived, tmp_path) -> Path:
    dst = tmp_path / "results"
    shutil.copytree(archived, dst)
    return dst


def _edit_cell(path: Path, row: str, old: str, new: str) -> None:
    lines = path.read_text().split("\n")
    k = next(i for i, line in enumerate(lines) if line.startswith(f"| {row} |"))
    assert old in lines[k]
    lines[k] = lines[k].replace(old, new, 1)
    path.write_text("\n".join(lines))


def test_the_committed_tables_regenerate(tree, tmp_path):
    report = verify_results(tree, tmp_path / "work")
    assert report.ok, report.differences + report.errors  # type: ignore[operator]
    assert sorted(report.identical) == ["results/exp/summary.csv", "results/exp/summary.md"]
    assert report.unverified == ["results/slow: no records committed (cost: 3.5 CPU-hours; "
                                 "O(m^3) baselines)"]
    assert not (tree / "exp" / "runs").exists()


def test_a_hand_edited_cell_fails_naming_file_and_cell(tree, tmp_path):
    md = tree / "exp" / "summary.md"
    text = md.read_text()
    rls = next(line for line in text.split("\n") if line.startswith("| RLS |"))
    ours = rls.split("|")[2].strip()  # the OCA cell, "mean ± sd"
    _edit_cell(md, "RLS", ours, "99.99 ± 0.00")
    report = verify_results(tree, tmp_path / "work")
    assert not report.ok
    [d] = report.differences
    assert d.file == "results/exp/summary.md"
    assert "row 'RLS'" in d.where and "column 'OCA (%)'" in d.where and "'SEA'" in d.where
    assert (d.committed, d.regenerated) == ("99.99 ± 0.00", ours)


def test_the_script_fails_on_a_csv_edit(tree):
    csv = tree / "exp" / "summary.csv"
    lines = csv.read_text().split("\n")
    k = next(i for i, line in enumerate(lines) if line.startswith("SEA,RLS,oca,"))
    cells = lines[k].split(",")
    cells[5] = "7"  # n
    lines[k] = ",".join(cells)
    csv.write_text("\n".join(lines))
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "verify_results.py"),
                           "--results", str(tree)], capture_output=True, text=True,
                          cwd=tree.parent)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "DIFFERS results/exp/summary.csv" in proc.stdout
    assert ("row (stream=SEA, algorithm=RLS, metric=oca), column 'n': committed '7', "
            "regenerated '2'") in proc.stdout
    assert "UNVERIFIED results/slow: no records committed (cost: 3.5 CPU-hours" in proc.stdout
    assert "verify-results: FAILED" in proc.stdout


def test_a_folder_without_records_must_be_listed(tree, tmp_path):
    (tree / NOT_COMMITTED).write_text(json.dumps({"folders": {}}))
    report = verify_results(tree, tmp_path / "work")
    assert not report.ok
    assert report.errors == ["results/slow: no records committed (runs.tar.xz) and not "
                             f"listed in results/{NOT_COMMITTED}"]


def test_a_listed_folder_with_an_archive_is_an_error(tree, tmp_path):
    (tree / NOT_COMMITTED).write_text(json.dumps(
        {"folders": {"slow": {"cpu_hours": 1}, "exp": {"cpu_hours": 1}}}))
    report = verify_results(tree, tmp_path / "work")
    assert any("results/exp: its tables are verifiable but it is still listed" in e
               for e in report.errors)


def test_a_changed_record_fails(tree, tmp_path):
    """The archive is the authority: a record changed inside it shows in the tables."""
    members = record_archive.read_archive(tree / "exp" / "runs.tar.xz")
    rid = "SEA__RLS__seed0"
    rec = json.loads(members[rid])
    rec["metrics"]["oca"] = 0.25
    members[rid] = json.dumps(rec).encode()
    (tree / "exp" / "runs.tar.xz").write_bytes(record_archive.archive_bytes(members))
    report = verify_results(tree, tmp_path / "work")
    files = {d.file for d in report.differences}
    assert files == {"results/exp/summary.md", "results/exp/summary.csv"}


def test_markdown_differences_name_section_row_and_column():
    a = "# T\n\n## german\n\n| Algorithm | ours | time (s) |\n|---|---|---|\n| FORKS | 1.00 | 2 |\n"
    b = a.replace("| 1.00 |", "| 1.01 |")
    [d] = markdown_differences("t.md", a, b)
    assert d.describe() == ("t.md: line 7, section 'german', row 'FORKS', column 'ours': "
                            "committed '1.00', regenerated '1.01'")
    extra = markdown_differences("t.md", a, a + "| SkeGD | 3 | 4 |\n")
    assert [x.where for x in extra] == ["line 8 of the regenerated file is not committed"]


def test_csv_differences_name_row_and_column():
    a = "stream,algorithm,metric,mean\nSEA,A,oca,1\nSEA,B,oca,2\n"
    [d] = csv_differences("s.csv", a, a.replace("B,oca,2", "B,oca,3"))
    assert d.where == "line 3, row (stream=SEA, algorithm=B, metric=oca), column 'mean'"
    changed = csv_differences("s.csv", a, a.replace("metric,mean", "metric,mean,unit"))
    assert [d.where for d in changed] == ["line 1: the columns differ"]


def test_an_experiment_that_planned_no_run_needs_no_archive(tmp_path):
    """Every stream's data absent (--skip-missing-data): the tables show the paper's values
    only, and regenerate from experiment.json alone."""
    results = tmp_path / "results"
    out = results / "absent"
    cfg = parse_config({**TINY, "streams": [{"name": "csv", "label": "Gone",
                                              "params": {"path": str(tmp_path / "no.csv")}}],
                        "reference": {"source": "paper",
                                      "values": {"Gone": {"RLS": {"oca": 80.0}}}},
                        "outputs": {"dir": str(out), "tables": ["markdown", "csv"], "plots": []}})
    run_experiment(cfg, out, skip_missing_data=True)
    build_report(out)
    assert json.loads((out / "experiment.json").read_text())["runs"] == []
    report = verify_results(results, tmp_path / "work")
    assert report.ok and len(report.identical) == 2 and not report.unverified, report


def test_a_folder_whose_manifest_is_gone_is_an_error(tree, tmp_path):
    """A folder is found by its experiment.json: with it deleted, a doctored summary and
    the archive beside it had been passed over (verify said OK; hunt 11)."""
    md = tree / "exp" / "summary.md"
    rls = next(line for line in md.read_text().split("\n") if line.startswith("| RLS |"))
    _edit_cell(md, "RLS", rls.split("|")[2].strip(), "99.99 ± 0.00")
    (tree / "exp" / "experiment.json").unlink()
    report = verify_results(tree, tmp_path / "work")
    assert not report.ok
    assert any(e.startswith("results/exp: has records or tables but no experiment.json")
               for e in report.errors), report.errors


def test_paper_values_other_than_the_configs_are_an_error(tree, tmp_path):
    """The tables print the paper values of experiment.json: edited there (and the summary
    rebuilt from it), a paper value and its Δ had passed; they must be the config's."""
    import yaml

    cfg_dir = tree.parent / "configs"
    cfg_dir.mkdir(exist_ok=True)
    (cfg_dir / "tiny.yaml").write_text(yaml.safe_dump(TINY))
    path = tree / "exp" / "experiment.json"
    manifest = json.loads(path.read_text())
    manifest["config_path"] = "configs/tiny.yaml"
    path.write_text(json.dumps(manifest))
    assert not any("paper values" in e for e in verify_results(tree, tmp_path / "w1").errors)
    manifest["config"]["reference"]["values"]["SEA"]["RLS"]["oca"] = 99.0
    path.write_text(json.dumps(manifest))
    errors = verify_results(tree, tmp_path / "w2").errors
    assert any(e.startswith("results/exp: its experiment.json's paper values") and
               "configs/tiny.yaml" in e for e in errors), errors
