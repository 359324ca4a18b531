"""``outputs.cpu_time``: CPU µs per sample and samples per CPU-second in the tables,
computed from each record's process CPU time and sample count (issue 25's "samples per
CPU-second, same run"); absent unless asked for, so older tables stay as they were."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from streamlearn.config import parse_config
from streamlearn.evaluation.runner import run_experiment
from streamlearn.reporting.report import build_report


def _run(out: Path, cpu_time: bool | None):
    outputs = {"dir": str(out), "plots": []}
    if cpu_time is not None:
        outputs["cpu_time"] = cpu_time
    cfg = parse_config({
        "name": "cpu", "seeds": [0, 1],
        "streams": [{"name": "sea", "label": "SEA", "max_samples": 300, "reseed": True}],
        "algorithms": [{"name": "passive_aggressive", "label": "PA"}],
        "metrics": ["oca"], "outputs": outputs})
    assert not run_experiment(cfg, out).failed
    return build_report(out)[0]


def test_cpu_columns_equal_the_records(tmp_path: Path):
    s = _run(tmp_path / "on", True)
    recs = [json.loads(p.read_text()) for p in sorted((tmp_path / "on" / "runs").glob("*.json"))]
    cpu = np.array([r["timing"]["process_cpu_seconds"] for r in recs])
    n = np.array([r["timing"]["n_samples"] for r in recs], dtype=float)
    t = s.table.set_index("metric")
    assert t.loc["cpu_us_per_sample", "mean"] == pytest.approx((cpu / n * 1e6).mean())
    assert t.loc["samples_per_cpu_second", "mean"] == pytest.approx((n / cpu).mean())
    assert t.loc["samples_per_cpu_second", "n"] == 2
    md = (tmp_path / "on" / "summary.md").read_text(encoding="utf-8")
    assert "CPU µs/sample" in md and "samples/CPU-s" in md


@pytest.mark.parametrize("flag", [None, False])
def test_no_cpu_columns_unless_asked(tmp_path: Path, flag):
    s = _run(tmp_path / "off", flag)
    assert not s.table["metric"].isin(["cpu_us_per_sample", "samples_per_cpu_second"]).any()
    assert "CPU" not in (tmp_path / "off" / "summary.md").read_text(encoding="utf-8")
    assert "cpu_time" not in json.loads(
        (tmp_path / "off" / "experiment.json").read_text())["config"]["outputs"]
