"""benchmarks/limits_table.py: issue 25's table from the benchmarks' JSON files."""

from __future__ import annotations

import json
from pathlib import Path

from tests.benchmarks import load_benchmark


def _module():
    return load_benchmark("limits_table")


def _floor(median: float) -> dict:
    return {
        "floor": {
            "m": 1100,
            "block": 8,
            "tile": 256,
            "load_1min": [1.0, 1.2],
            "us_per_sample": [200.0, 210.0, 220.0],
            "floor_ratio": {"median": median, "min": median - 0.1, "max": median + 0.1},
            "learners": {"online_bls_fast": {"floor_ratio": {"median": 2.4, "min": 2.3,
                                                             "max": 2.5}}},
        }
    }


def test_rows_judge_each_target_and_mark_missing_benchmarks(tmp_path: Path) -> None:
    mod = _module()
    (tmp_path / "bls_floor.json").write_text(json.dumps(_floor(1.8)))
    (tmp_path / "forks.json").write_text(
        json.dumps({"load_1min": 1.5, "pnk_over_forks": {"50": 20.0, "500": 9.0}})
    )
    table = {r[0]: r for r in mod.rows(tmp_path, tmp_path / "no_results")}
    floor = next(r for k, r in table.items() if k.startswith("stationary learner"))
    assert floor[2].startswith("1.80×") and floor[4] == "met" and floor[5] == "1.0–1.2"
    assert "`online_bls_fast` 2.40×" in floor[2]
    pnk = table["PROS-N-KONS / FORKS per sample, every B"]
    assert pnk[4] == "MISSED"  # 9.0 at B = 500 misses ≥ 10 although B = 50 meets it
    ada = next(r for k, r in table.items() if k.startswith("drift learner"))
    assert ada[2] == "not run" and ada[4] == "—"

    (tmp_path / "bls_floor.json").write_text(json.dumps(_floor(2.3)))
    table = {r[0]: r for r in mod.rows(tmp_path, tmp_path / "no_results")}
    floor = next(r for k, r in table.items() if k.startswith("stationary learner"))
    assert floor[4] == "MISSED"


def _ratio(median: float) -> dict:
    return {"median": median, "min": median - 0.05, "max": median + 0.05}


def test_drift_row_judges_against_both_stationary_learners(tmp_path: Path) -> None:
    mod = _module()
    rec = {"c": 10, "load_1min": [0.5], "ratio_online_bls_ada_fast": _ratio(1.8),
           "ratio_online_bls_ada_blocked": _ratio(1.25),
           "ratio_online_bls_ada_blocked_over_online_bls_blocked": _ratio(1.65)}
    (tmp_path / "bls.json").write_text(json.dumps({"drift_ratios": [rec]}))
    table = {r[0]: r for r in mod.rows(tmp_path, tmp_path / "no_results")}
    ada = next(r for k, r in table.items() if k.startswith("drift learner"))
    assert ada[4] == "met over `online_bls_fast`; MISSED over `online_bls_blocked`"
    assert "1.25× [1.20–1.30] over fast, 1.65× [1.60–1.70] over blocked" in ada[2]
    rec["ratio_online_bls_ada_blocked_over_online_bls_blocked"] = _ratio(1.4)
    (tmp_path / "bls.json").write_text(json.dumps({"drift_ratios": [rec]}))
    table = {r[0]: r for r in mod.rows(tmp_path, tmp_path / "no_results")}
    assert next(r for k, r in table.items() if k.startswith("drift learner"))[4] == "met"


def test_main_writes_limits_md(tmp_path: Path) -> None:
    mod = _module()
    (tmp_path / "runner.json").write_text(
        json.dumps(
            [
                {
                    "learner": "rls",
                    "bare_us_per_sample": 6.0,
                    "load_1min": [2.0],
                    "engine_over_bare": {"median": 1.04},
                    "engine_ns_per_sample_over_bare": 240.0,
                },
                {
                    "learner": "null",
                    "bare_us_per_sample": 0.1,
                    "load_1min": [2.0],
                    "engine_over_bare": {"median": 4.0},
                    "engine_ns_per_sample_over_bare": 300.0,
                },
            ]
        )
    )
    assert mod.main(["--out-dir", str(tmp_path), "--results", str(tmp_path)]) == 0
    text = (tmp_path / "limits.md").read_text()
    assert "rls (6.0 µs) +4.0 %" in text and "engine's own 0.30 µs" in text
    assert text.count("\n| ") == 8  # the header and the 7 rows of the table


def test_fast_ons_row_says_where_the_target_is_below_the_recursions_floor(
        tmp_path: Path) -> None:
    mod = _module()
    ons = {"load_1min": [1.0, 1.1], "scalar_chain_ns": 40.0,
           "ns_per_sample": {"16": {"ogd": 20.0, "fast_ons": 66.0, "ons": 900.0},
                             "128": {"ogd": 50.0, "fast_ons": 140.0, "ons": 9e4}},
           "floor_ns": {"1": {"ogd": 8.0, "rotation_alone": 34.0},
                        "16": {"ogd": 20.0, "rotation_alone": 40.0}}}
    (tmp_path / "fast_ons.json").write_text(json.dumps(ons))
    row = {r[0]: r for r in mod.rows(tmp_path, tmp_path / "no_results")}[
        "fast ONS / OGD, worst over M"]
    assert row[2].startswith("3.30× (M = 16")
    assert "4.25× at M = 1, 2.00× at M = 16 OGD" in row[2]
    assert row[2].endswith("the target is below its floor at M = 1") and row[4] == "MISSED"
