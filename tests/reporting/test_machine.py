"""The machine and its load beside the timings (issue 24, item 5): each run records the
load average at the end of its timed part; summary.md and the HTML report print the
machine and the load range; records without the load (older ones) print no load line in
summary.md, so the committed tables rebuilt by ``make verify-results`` stay equal."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from streamlearn.config import parse_config
from streamlearn.evaluation.runner import run_experiment
from streamlearn.reporting import html, machine
from streamlearn.reporting.report import build_report
from streamlearn.reporting.summary import summarize
from streamlearn.reporting.tables import to_markdown


@pytest.fixture(scope="module")
def out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("machine") / "out"
    cfg = parse_config({
        "name": "machine", "seeds": [0, 1],
        "streams": [{"name": "sea", "label": "SEA", "max_samples": 200, "reseed": True}],
        "algorithms": [{"name": "passive_aggressive", "label": "PA"}],
        "metrics": ["oca"], "outputs": {"dir": str(out), "plots": ["time"]}})
    assert not run_experiment(cfg, out).failed
    return out


def _records(out: Path) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted((out / "runs").glob("*.json"))]


def test_each_record_has_the_load_at_the_end_of_its_timed_run(out: Path):
    for r in _records(out):
        load = r["machine"]["load_average"]
        assert len(load) == 3 and all(x >= 0 for x in load)


def test_summary_and_report_print_the_machine_and_the_load_range(out: Path):
    summary, _ = build_report(out)
    lows = [r["machine"]["load_average"][0] for r in summary.runs]
    line = machine.load_line(summary.runs, 2)
    assert f"{min(lows):.1f}" in line and "(2 of 2 runs)" in line
    md = (out / "summary.md").read_text(encoding="utf-8")
    assert "Machine of the timings:" in md and "Load average (1 min" in md
    page = html.render_html(summary, [])
    assert "Machine of the timings:" in page and "Load average (1 min" in page


def test_records_without_the_load_print_no_load_line_in_summary_md(out: Path):
    summary = summarize(out)
    for r in summary.runs:
        del r["machine"]["load_average"]
    assert machine.load_range(summary.runs) is None
    md = to_markdown(summary)
    assert "Load average" not in md and "Machine of the timings" not in md


def test_several_machines_are_listed_with_their_run_counts():
    a = {"cpu": "A", "logical_cores": 2, "system": "Linux", "blas": [],
         "load_average": [0.5, 0.4, 0.3]}
    b = {**a, "cpu": "B", "load_average": [3.0, 2.0, 1.0]}
    lines = machine.timing_lines([{"machine": a}, {"machine": a}, {"machine": b}, {}])
    assert lines[0].startswith("The timings were measured on more than one machine")
    assert "- 2 run(s): A, 2 logical cores, Linux" in lines
    assert any(line.startswith("- 1 run(s): not recorded") for line in lines)
    assert lines[-1].startswith("Load average (1 min, at the end of each timed run): "
                                "0.5-3.0 on 2 logical cores (3 of 4 runs)")


def test_records_name_the_vector_extension_and_numba_target(out: Path):
    # the summation order of vectorised reductions follows them (README, "Seeds and
    # reproducibility")
    for r in _records(out):
        info = r["machine"]
        assert info["vector_isa"] in {"AVX-512", "AVX2", "AVX", "SSE2", "NEON", "other",
                                      "unknown"}
        assert isinstance(info["jit_cpu"], str) and info["jit_cpu"]
        line = machine.describe_machine(info)
        jit = info["jit_cpu"] + (f" {info['jit_features']}" if info.get("jit_features") else "")
        assert f"({info['vector_isa']}, Numba target {jit})" in line
    wide = {"cpu": "A", "logical_cores": 2, "system": "Linux", "blas": [],
            "vector_isa": "AVX-512", "jit_cpu": "emeraldrapids",
            "jit_features": "-prefer-256-bit"}  # streamlearn.kernels._jit_target's setting
    assert machine.describe_machine(wide).startswith(
        "A (AVX-512, Numba target emeraldrapids -prefer-256-bit), 2 logical cores")
    assert machine.describe_machine({**wide, "jit_svml": "on"}).startswith(
        "A (AVX-512, Numba target emeraldrapids -prefer-256-bit SVML), 2 logical cores")
    old = {"cpu": "A", "logical_cores": 2, "system": "Linux", "blas": []}
    assert machine.describe_machine(old) == "A, 2 logical cores, Linux"  # older records


def test_numba_keeps_the_c_librarys_math_unless_the_user_asks_for_svml():
    # SVML's exp/tanh round otherwise than the C library's: other bits for the same seed
    import os
    import subprocess
    import sys

    code = ("import streamlearn, numba; from numba.core import config; "
            "from streamlearn.evaluation import records; "
            "print(config.DISABLE_INTEL_SVML, 'jit_svml' in records._numba_target())")
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_DISABLE_INTEL_SVML"}
    got = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True).stdout.split()
    assert got == ["1", "False"]
    env["NUMBA_DISABLE_INTEL_SVML"] = "0"  # the user's choice stands
    got = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True).stdout.split()
    assert got[0] == "0"


def test_records_name_svml_when_numba_uses_it(monkeypatch):
    from numba.core import config

    from streamlearn.evaluation import records

    monkeypatch.setattr(config, "USING_SVML", True, raising=False)
    assert records._numba_target()["jit_svml"] == "on"
    monkeypatch.setattr(config, "USING_SVML", False, raising=False)
    assert "jit_svml" not in records._numba_target()


def test_records_made_without_jit_name_no_target(monkeypatch):
    """Under NUMBA_DISABLE_JIT nothing is compiled: the record says so, not the host's CPU
    (``records diff`` could not name the cause when a JIT and a no-JIT run differ)."""
    from numba.core import config

    from streamlearn.evaluation import records
    from streamlearn.reporting.machine import describe_machine

    monkeypatch.setattr(config, "DISABLE_JIT", True)
    monkeypatch.setattr(config, "CPU_FEATURES", "+avx2", raising=False)
    monkeypatch.setattr(config, "USING_SVML", True, raising=False)
    records._vector_isa.cache_clear()  # read once per process: the env is set at start
    try:
        info = records.machine_info()
    finally:
        records._vector_isa.cache_clear()
    assert info["jit_cpu"] == records.NO_JIT == "none (NUMBA_DISABLE_JIT)"
    assert "jit_features" not in info and "jit_svml" not in info
    assert "Numba target none (NUMBA_DISABLE_JIT))" in describe_machine(info)
    monkeypatch.setattr(config, "DISABLE_JIT", False)
    assert records._numba_target()["jit_cpu"] != records.NO_JIT
