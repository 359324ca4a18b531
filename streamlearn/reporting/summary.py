"""Aggregate saved run records into mean ± SD per (stream, algorithm).

Everything here reads only ``experiment.json`` and ``runs/*.json``; nothing is re-run.
SD is the sample standard deviation (``ddof=1``) over seeds, 0 for a single run.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from streamlearn.base import UserError
from streamlearn.evaluation import records
from streamlearn.registry import get_metric, load_all


@dataclass
class Summary:
    """Aggregated results of an experiment directory."""

    manifest: dict[str, Any]
    runs: list[dict[str, Any]]  # complete records of the planned runs
    missing: list[str]  # planned run ids without a complete record
    table: pd.DataFrame  # long form: stream, algorithm, metric, mean, sd, n, paper, diff, kind
    failed: list[dict[str, Any]] = field(default_factory=list)

    @property
    def config(self) -> dict[str, Any]:
        return self.manifest["config"]

    @property
    def metrics(self) -> list[str]:
        return list(self.config["metrics"])


def _sd(values: np.ndarray) -> float:
    return float(np.std(values, ddof=1)) if values.size > 1 else 0.0


def load_runs(out_dir: Path) -> tuple[dict[str, Any], list[dict], list[str], list[dict]]:
    manifest = records.read_json(out_dir / "experiment.json")
    if manifest is None:
        raise UserError(
            f"{out_dir} is not a streamlearn results directory (no readable experiment.json). "
            "Give the directory that `streamlearn run` wrote (outputs.dir of the config)."
        )
    ok, missing, failed = [], [], []
    for run in manifest["runs"]:
        rec = records.read_json(records.record_path(out_dir, run["run_id"]))
        if not records.is_complete(rec, run["digest"]):
            missing.append(run["run_id"])
        elif rec.get("status") == "failed":
            failed.append(rec)
        else:
            ok.append(rec)
    return manifest, ok, missing, failed


def summarize(out_dir: Path) -> Summary:
    """Read the records of ``out_dir`` and aggregate them."""
    load_all()
    manifest, runs, missing, failed = load_runs(out_dir)
    cfg = manifest["config"]
    ref_values = cfg["reference"]["values"]
    rows = []
    for s in cfg["streams"]:
        s_label = s["label"]
        for a in cfg["algorithms"]:
            a_label = a["label"]
            mine = [r for r in runs if r["stream"] == s_label and r["algorithm"] == a_label]
            paper = ref_values.get(s_label, {}).get(a_label, {})
            for metric in cfg["metrics"]:
                vals = np.array([r["metrics"][metric] for r in mine if metric in r["metrics"]])
                scale = get_metric(metric).scale
                mean = float(vals.mean() * scale) if vals.size else np.nan
                sd = _sd(vals * scale) if vals.size else np.nan
                ref = paper.get(metric)
                rows.append({
                    "stream": s_label, "algorithm": a_label, "metric": metric,
                    "mean": mean, "sd": sd, "n": int(vals.size),
                    "paper": np.nan if ref is None else ref,
                    "diff": np.nan if ref is None or not vals.size else mean - ref,
                    "kind": "run",
                })
            for key, name in (("per_sample_seconds", "us_per_sample"),
                              ("per_sample_learn_seconds", "us_per_update")):
                vals = np.array([r["timing"][key] for r in mine], dtype=float) * 1e6
                vals = vals[np.isfinite(vals)]
                rows.append({
                    "stream": s_label, "algorithm": a_label, "metric": name,
                    "mean": float(vals.mean()) if vals.size else np.nan,
                    "sd": _sd(vals) if vals.size else np.nan,
                    "n": int(vals.size), "paper": np.nan, "diff": np.nan, "kind": "run",
                })
        for a_label in cfg["reference"]["cited"]:
            paper = ref_values.get(s_label, {}).get(a_label)
            if not paper:
                continue
            for metric in cfg["metrics"]:
                ref = paper.get(metric)
                rows.append({
                    "stream": s_label, "algorithm": a_label, "metric": metric,
                    "mean": np.nan, "sd": np.nan, "n": 0,
                    "paper": np.nan if ref is None else ref, "diff": np.nan, "kind": "cited",
                })
    table = pd.DataFrame(rows, columns=["stream", "algorithm", "metric", "mean", "sd", "n",
                                        "paper", "diff", "kind"])
    return Summary(manifest=manifest, runs=runs, missing=missing, table=table, failed=failed)
