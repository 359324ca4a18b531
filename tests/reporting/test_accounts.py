"""Each paper's one-line account (streamlearn/reporting/papers/accounts.py, issue 26 item
5): cells counted from the committed tables, misses.json causes, and `make verify-results`
failing on a hand-edited account line or a stale misses.json key."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from streamlearn.reporting.papers import accounts
from streamlearn.reporting.papers.accounts import (
    PREFIX,
    SPECS,
    PaperSpec,
    Tables,
    account_line,
    compute_account,
    readme_account,
    write_accounts,
)
from streamlearn.reporting.verify import VerifyReport, verify_accounts, verify_results

ROOT = Path(__file__).resolve().parents[2]

SUMMARY = """stream,algorithm,metric,mean,sd,n,paper,diff,kind
A,Ours,oca,91.0,0.1,3,90.0,1.0,run
A,Ours,us_per_sample,10.0,1.0,3,,,run
A,Base,oca,,,0,70.0,,cited
B,Ours,oca,80.0,0.1,3,85.0,-5.0,run
B,Base,oca,,,0,60.0,,cited
B,Other,oca,50.0,0.1,3,60.0,-10.0,run
C,Ours,oca,,,0,95.0,,run
"""
BASELINES = """stream,algorithm,metric,mean,sd,n,paper,diff,kind
A,Base,oca,72.0,0.5,3,70.0,2.0,run
A,Ours,oca,91.0,0.1,3,90.0,1.0,run
"""
TABLE1 = """# Toy Table 1

## german

| Algorithm | ours | paper | Δ | time (s) |
|---|---|---|---|---|
| RBP | 38.50 ± 1.67 | 38.830 ± 0.152 | -0.33 | 0.034 |
| FORKS | 31.12 ± 0.58 | 26.425 ± 0.562 | +4.70 | 0.011 |
| NOGD | — | 26.715 ± 0.552 |  | |

## Regret

| Algorithm | R_T/T |
|---|---|
| FORKS | 0.670 |
"""
TABLES23 = """# Toy Tables 2-3

## codrna-1 — σ selected on the adversarial stream

| Algorithm | ours | paper | time (s) | paper time (s) |
|---|---|---|---|---|
| BOGD | 5.10 ± 0.27 | 26.066 ± 1.435 | 0.110 | 0.029 |
| FORKS | 7.00 ± 0.69 | 6.752 ± 1.647 | 0.181 | 0.023 |
"""
RIDGE = """# Toy ridge

## λ = 2^-30 (paper block λ_1)

| algorithm | u0 | u1 | u2 |
|---|---|---|---|
| Chol-1 | 97.23 | 98.50 | NA (1/1) |
| *paper Chol-1* | *98.30* | *98.62* | *98.76* |
| Orig. | 97.00 | 98.10 | NA (1/1) |
| *paper Orig.* | *98.30* | NA | NA |
| R-Inv | 97.00 | 98.50 |
| *paper R-Inv* | *98.30* | *98.62* | *98.76* |
"""
README = "# {title}\n\nFirst paragraph.\n\n## Discussion\n\nText.\n"


@pytest.fixture
def toy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A results folder ``toy`` with two summaries; SPECS gets its entry."""
    folder = tmp_path / "results" / "toy"
    for rel, text in (("main/summary.csv", SUMMARY), ("base/summary.csv", BASELINES)):
        (folder / rel).parent.mkdir(parents=True)
        (folder / rel).write_text(text)
    (folder / "main" / "experiment.json").write_text(json.dumps(
        {"not_run": {"C": "needs the file c.gz"}}))
    (folder / "README.md").write_text(README.format(title="Toy"))
    monkeypatch.setitem(SPECS, "toy", PaperSpec(
        tables=(Tables("main/summary.csv", "Table 3", algorithms=("Ours", "Base"),
                       why="too slow"),
                Tables("base/summary.csv", "Table 3")),
        tolerance={"oca": 1.5}))
    return folder


def test_summary_cells_counted(toy: Path) -> None:
    acc = compute_account(toy)
    got = {(c.table, c.algorithm): (c.ours, c.within) for c in acc.cells}
    # A/Ours once (main first), A/Base measured in base/, Other left out by the filter,
    # timing rows not compared
    assert got == {("A", "Ours"): (91.0, True), ("A", "Base"): (72.0, False),
                   ("B", "Ours"): (80.0, False)}
    assert {(c.table, c.algorithm, c.why) for c in acc.not_run} == {
        ("B", "Base", "too slow"), ("C", "Ours", "data file not on this machine")}
    assert len(acc.outside) == 2 and acc.count("measured") == 0


def test_account_line_counts_causes(toy: Path) -> None:
    (toy / "misses.json").write_text(json.dumps({
        "main/summary.csv | B | Ours | oca": {"cause": "measured", "where": "Discussion"}}))
    line = account_line(compute_account(toy))
    assert line == (f"{PREFIX} 1 of 3 cells within tolerance (OCA ±1.5 points) · 1 outside "
                    "with a measured cause · 0 outside with the cause only asserted · 1 "
                    "outside without a stated cause · 2 not run (1 on B: too slow; 1 on C: "
                    "data file not on this machine).")
    write_accounts(toy.parent)
    lines = (toy / "README.md").read_text().split("\n")
    assert lines[:4] == ["# Toy", "", line, ""] and lines[4] == "First paragraph."
    write_accounts(toy.parent)  # replaces its own line, adds nothing
    assert (toy / "README.md").read_text().count(PREFIX) == 1


COST = """# Cost

| method | dataset | N | measured CPU ms/sample (prefix: value) | CPU-h per run | CPU-h, 10 runs |
|---|---|---|---|---|---|
| Base | A | 10 | 300: 1.00 | 0.40 | 4.0 |
| Base | B | 10 | 300: 1.00 | 1.25 | 12.5 |
| Base | C | 10 | 300: 1.00 | 9.00 | 90.0 |
"""


def test_a_cost_reason_adds_up_the_cost_table_rows_of_the_cells_not_run(
        toy: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (toy / "cost.md").write_text(COST)
    (toy / "main" / "summary.csv").write_text(
        SUMMARY + "B,Base,bacc,,,0,50.0,,cited\n")  # a second metric: the pair counts once
    spec = SPECS["toy"]
    monkeypatch.setitem(SPECS, "toy", PaperSpec(
        tables=(Tables("main/summary.csv", "Table 3", algorithms=("Ours", "Base"),
                       why="whole streams ({cost}) not run", cost="cost.md"),
                *spec.tables[1:]),
        tolerance={"oca": 1.5, "bacc": 1.5}))
    acc = compute_account(toy)
    # A/Base is measured in base/, so only B/Base is not run: its row alone, once
    assert {(c.table, c.metric, c.why) for c in acc.not_run if c.algorithm == "Base"} == {
        ("B", m, "whole streams (≈ 1.2 CPU-hours for one run each, 12 for the paper's 10, "
                 "cost.md) not run") for m in ("oca", "bacc")}
    (toy / "cost.md").write_text(COST.replace("| Base | B |", "| Base | D |"))
    with pytest.raises(ValueError, match="no row for"):
        compute_account(toy)
    # make verify-results reports it as an error, without a traceback
    report = VerifyReport()
    verify_accounts(report, toy.parent, "toy", "results")
    assert not report.ok and any("no row for" in e for e in report.errors)


def test_markdown_readers(tmp_path: Path) -> None:
    forks = tmp_path / "forks"
    forks.mkdir()
    (forks / "table1.md").write_text(TABLE1)
    (forks / "tables2_3.md").write_text(TABLES23)
    acc = compute_account(forks)
    assert [(c.table.split(" ")[0], c.algorithm, c.delta, c.within) for c in acc.cells] == [
        ("german", "RBP", -0.33, True), ("german", "FORKS", 4.70, False),
        ("codrna-1", "BOGD", pytest.approx(5.10 - 26.066), False),
        ("codrna-1", "FORKS", pytest.approx(7.00 - 6.752), True)]
    assert [c.key for c in acc.not_run] == ["table1.md | german | NOGD | mistake_rate"]
    assert "Table 1: 1 of 2; Tables 2–3: 1 of 2" in account_line(acc)

    ridge = tmp_path / "ridge_bls" / "mnist_tables"
    ridge.mkdir(parents=True)
    (ridge / "tables.md").write_text(RIDGE)
    acc = compute_account(ridge.parent)
    # a failed factorisation is a result: NA against a number is outside any tolerance,
    # NA on both sides agrees; a column we did not run is "not run"
    assert [(c.algorithm, c.column, c.within) for c in acc.cells] == [
        ("Chol-1", "u0", False), ("Chol-1", "u1", True), ("Chol-1", "u2", False),
        ("Orig.", "u0", False), ("Orig.", "u1", False), ("Orig.", "u2", True),
        ("R-Inv", "u0", False), ("R-Inv", "u1", True)]
    assert [c.key for c in acc.not_run] == [
        "mnist_tables/tables.md | λ = 2^-30 (paper block λ_1) | R-Inv | test_accuracy u2"]
    assert "3 of 8 cells within tolerance" in account_line(acc)


def _forks_tree(tmp_path: Path) -> Path:
    results = tmp_path / "results"
    (results / "forks").mkdir(parents=True)
    (results / "forks" / "table1.md").write_text(TABLE1)
    (results / "forks" / "README.md").write_text(README.format(title="FORKS"))
    (results / "forks" / "misses.json").write_text(json.dumps({
        "table1.md | german | FORKS | mistake_rate": {"cause": "asserted",
                                                     "where": "Discussion"}}))
    write_accounts(results)
    return results


def _account_diffs(results: Path, work: Path) -> list[str]:
    report = verify_results(results, work, folders=[])
    return [d.describe() for d in report.differences]


def test_verify_passes_then_fails_on_hand_edit(tmp_path: Path) -> None:
    results = _forks_tree(tmp_path)
    assert _account_diffs(results, tmp_path / "w1") == []
    readme = results / "forks" / "README.md"
    readme.write_text(readme.read_text().replace("1 of 2 cells", "2 of 2 cells"))
    diffs = _account_diffs(results, tmp_path / "w2")
    assert len(diffs) == 1 and "results/forks/README.md: line 3, the account line" in diffs[0]
    assert "2 of 2 cells" in diffs[0] and "1 of 2 cells" in diffs[0]
    readme.write_text(README.format(title="FORKS"))  # no account line at all
    assert len(_account_diffs(results, tmp_path / "w3")) == 1


def test_verify_reports_stale_key_bad_cause_and_heading(tmp_path: Path) -> None:
    results = _forks_tree(tmp_path)
    misses = results / "forks" / "misses.json"
    misses.write_text(json.dumps({
        "table1.md | german | FORKS | mistake_rate": {"cause": "guessed", "where": "Nowhere"},
        "table1.md | german | RBP | mistake_rate": {"cause": "measured",
                                                   "where": "Discussion"}}))
    diffs = _account_diffs(results, tmp_path / "w")
    assert any("key 'table1.md | german | RBP | mistake_rate': no cell outside tolerance"
               in d for d in diffs)  # RBP is within tolerance: a stale key
    assert any("cause is not one of" in d and "'guessed'" in d for d in diffs)
    assert any("has no heading" in d and "'Nowhere'" in d for d in diffs)


@pytest.mark.skipif(not (ROOT / "results").is_dir(), reason="no committed results/")
@pytest.mark.parametrize("paper", sorted(SPECS))
def test_committed_readmes_hold_their_account(paper: str) -> None:
    folder = ROOT / "results" / paper
    if not (folder / "README.md").is_file():
        pytest.skip(f"no results/{paper}/README.md")
    acc = compute_account(folder, paper)
    assert readme_account(folder / "README.md") == account_line(acc)
    assert acc.stale_keys() == []
    headings = accounts.readme_headings(folder / "README.md")
    assert all(e["where"] in headings and e["cause"] in accounts.CAUSES
               for e in acc.misses.values())
