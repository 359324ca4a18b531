"""The numbers of a results README's tables traced to committed outputs (readme_numbers)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from streamlearn.reporting import readme_numbers as rn
from streamlearn.reporting.verify import VerifyReport, verify_readme_numbers

ROOT = Path(__file__).resolve().parents[2]

SUMMARY_A = "| Algorithm | OCA (%) |\n|---|---|\n| Ours | 91.49 ± 0.26 |\n| RI-BLS | 40.55 |\n"
SUMMARY_B = "| Algorithm | OCA (%) |\n|---|---|\n| Ours | 83.70 |\n"


def _paper(tmp_path: Path, readme: str, derived: dict | None = None) -> Path:
    paper = tmp_path / "results" / "toy"
    for name, text in (("a", SUMMARY_A), ("b", SUMMARY_B)):
        (paper / name).mkdir(parents=True)
        (paper / name / "summary.md").write_text(text)
    (paper / "README.md").write_text(readme)
    if derived is not None:
        (paper / rn.DERIVED).write_text(json.dumps(derived))
    return paper


def _readme(rows_a: str, rows_b: str = "| Ours | 83.70 |") -> str:
    return ("# Toy\n\n## First\n\nFrom [a/summary.md](a/summary.md).\n\n| alg | OCA |\n"
            f"|---|---|\n{rows_a}\n\n## Second\n\nFrom `b/`.\n\n| alg | OCA |\n|---|---|\n"
            f"{rows_b}\n")


def test_a_copied_number_passes_and_a_slip_is_named_by_line_row_and_number(tmp_path):
    paper = _paper(tmp_path, _readme("| Ours | 91.49 ± 0.26 |\n| RI-BLS | 40.56 |"))
    untraced = rn.untraced_numbers(paper)
    assert [(u.line, u.row, u.number) for u in untraced] == [(10, "RI-BLS", "40.56")]
    assert "line 10, row 'RI-BLS': 40.56" in untraced[0].describe()


def test_roundings_of_a_committed_value_are_traced(tmp_path):
    # 91.49 -> 91.5 and 91; 40.55 -> 40.6 (half-even and half-up) and 40.5 (the binary
    # float 40.549999…, as Python formats it)
    paper = _paper(tmp_path, _readme("| Ours | 91.5 |\n| RI-BLS | 40.5 |\n| x | 40.6 |"))
    assert rn.untraced_numbers(paper) == []
    assert rn.roundings("40.55") == {"40.55", "40.6", "40.5", "41"}


def test_a_number_is_looked_for_in_the_outputs_its_section_names(tmp_path):
    # 83.70 is in b/, but the first section names a/ only
    paper = _paper(tmp_path, _readme("| Ours | 83.70 |", rows_b="| Ours | 91.49 |"))
    assert {(u.line, u.number) for u in rn.untraced_numbers(paper)} == {(9, "83.70"),
                                                                       (17, "91.49")}


def test_a_section_that_names_nothing_is_checked_against_every_output(tmp_path):
    readme = "# Toy\n\nNo source named here.\n\n| alg | OCA |\n|---|---|\n| Ours | 83.70 |\n"
    assert rn.untraced_numbers(_paper(tmp_path, readme)) == []


def test_the_allow_list_admits_its_numbers_and_reports_stale_entries(tmp_path):
    derived = {"RI-BLS": {"numbers": ["0.856"], "why": "the paper's SD"},
               "gone": {"numbers": ["1.23"], "why": "no longer in the README"}}
    paper = _paper(tmp_path, _readme("| RI-BLS | 72.0 ± 0.856 |"), derived)
    untraced = rn.untraced_numbers(paper)
    assert [(u.line, u.row, u.number) for u in untraced] == [(9, "RI-BLS", "72.0"),
                                                            (0, "gone", "1.23")]
    assert "listed in readme_derived.json" in untraced[1].describe()


def test_benchmark_outputs_count_only_where_the_section_names_them(tmp_path):
    bench = tmp_path / "benchmarks" / "out"
    bench.mkdir(parents=True)
    (bench / "x.json").write_text('{"ms": 0.4367}')
    named = "# Toy\n\nFrom `benchmarks/out/x.json`.\n\n| l | ms |\n|---|---|\n| f | 0.44 |\n"
    assert rn.untraced_numbers(_paper(tmp_path, named), bench) == []
    other = tmp_path / "other"
    other.mkdir()
    unnamed = named.replace("`benchmarks/out/x.json`", "a bench run")
    assert [u.number for u in rn.untraced_numbers(_paper(other, unnamed), bench)] == ["0.44"]


def test_mantissas_and_separator_rows_are_not_read():
    text = "| a | b |\n|---|---|\n| 2^-24 | −5.5·10⁻⁶ | 6.0×10⁻⁸ | 1.00e-05 | 12.5 |\n"
    assert [n for _, _, n in rn.table_numbers(text)] == ["12.5"]


def test_verify_reports_an_untraced_number_as_a_difference(tmp_path):
    paper = _paper(tmp_path, _readme("| Ours | 91.48 |"))
    report = VerifyReport()
    verify_readme_numbers(report, paper.parent, "toy", "results")
    assert [d.file for d in report.differences] == ["results/toy/README.md"]
    assert "91.48" in report.differences[0].describe()
    (paper / "README.md").write_text(_readme("| Ours | 91.49 |"))
    report = VerifyReport()
    verify_readme_numbers(report, paper.parent, "toy", "results")
    assert report.ok and report.identical == ["results/toy/README.md (table numbers traced)"]


@pytest.mark.parametrize("paper", ["online_bls", "forks", "ridge_bls", "fast_ons"])
def test_the_committed_readmes_trace_every_table_number(paper):
    folder = ROOT / "results" / paper
    if not (folder / "README.md").is_file():
        pytest.skip(f"no results/{paper}/README.md")
    untraced = rn.untraced_numbers(folder, ROOT / "benchmarks" / "out")
    assert untraced == [], "\n".join(u.describe() for u in untraced)


def test_a_malformed_allow_list_is_an_error_not_a_pass(tmp_path):
    paper = _paper(tmp_path, _readme("| Ours | 91.49 |"), {"Ours": {"numbers": ["1.0"]}})
    with pytest.raises(ValueError, match=r"readme_derived\.json"):
        rn.untraced_numbers(paper)
    report = VerifyReport()
    verify_readme_numbers(report, paper.parent, "toy", "results")
    assert not report.ok and "cannot be traced" in report.errors[0]
