"""Result tables (Markdown, CSV, Rich) with the paper's value beside ours."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pandas as pd

from streamlearn.evaluation.records import atomic_write_bytes
from streamlearn.registry import get_metric
from streamlearn.reporting.summary import Summary


def _fmt(mean: float, sd: float, n: int, digits: int = 2) -> str:
    if n == 0 or math.isnan(mean):
        return "—"
    if n == 1:
        return f"{mean:.{digits}f}"
    return f"{mean:.{digits}f} ± {sd:.{digits}f}"


def _num(x: float, digits: int = 2, signed: bool = False) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return ""
    return f"{x:+.{digits}f}" if signed else f"{x:.{digits}f}"


def _fmt_metric(m: Any, mean: float, sd: float, n: int) -> str:
    """``mean ± SD`` in the metric's display precision."""
    if n == 0 or math.isnan(mean):
        return "—"
    if n == 1:
        return m.format(mean)
    return f"{m.format(mean)} ± {m.format(sd)}"


def _ref(m: Any, x: float, signed: bool = False) -> str:
    """A paper value or a difference: one decimal for fixed-point (percent) metrics, the
    metric's significant digits otherwise."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return ""
    if m.notation == "fixed":
        return _num(x, 1, signed)
    text = m.format(x)
    return f"+{text}" if signed and x >= 0 else text


def metric_header(metric: str) -> str:
    return get_metric(metric).axis_label()


def wide_rows(summary: Summary, stream: str) -> tuple[list[str], list[list[str]]]:
    """Header and rows of one stream's table (one row per algorithm)."""
    t = summary.table[summary.table["stream"] == stream]
    absent = "not run here" if stream in (summary.manifest.get("not_run") or {}) else "—"
    # paper/Δ columns only for the metrics that have a reference value for this stream
    ref_metrics = set(t.loc[t["paper"].notna(), "metric"])
    header = ["Algorithm"]
    for metric in summary.metrics:
        header.append(metric_header(metric))
        if metric in ref_metrics:
            header += ["paper", "Δ"]
    upd = t[t["metric"] == "us_per_update"]
    has_update = bool((upd["n"] > 0).any())
    header += ["µs/sample"] + (["µs/update"] if has_update else []) + ["runs"]
    rows = []
    for algo in dict.fromkeys(t["algorithm"]):
        a = t[t["algorithm"] == algo].set_index("metric")
        cited = (a["kind"] == "cited").all()
        row = [f"{algo} (cited)" if cited else algo]
        for metric in summary.metrics:
            with_ref = metric in ref_metrics
            if metric not in a.index:
                row += ["—", "", ""] if with_ref else ["—"]
                continue
            r = a.loc[metric]
            m = get_metric(metric)
            cell = _fmt_metric(m, r["mean"], r["sd"], int(r["n"]))
            row.append("—" if cited else (absent if cell == "—" else cell))
            if with_ref:
                row += [_ref(m, r["paper"]), _ref(m, r["diff"], signed=True)]
        if cited:
            row += [""] * (2 if has_update else 1) + ["cited"]
        else:
            tm = a.loc["us_per_sample"]
            row.append(_fmt(tm["mean"], tm["sd"], int(tm["n"]), 2))
            if has_update:
                tu = a.loc["us_per_update"]
                row.append(_fmt(tu["mean"], tu["sd"], int(tu["n"]), 2))
            row.append(str(int(tm["n"])))
        rows.append(row)
    return header, rows


def caption(summary: Summary) -> str:
    cfg = summary.config
    seeds = cfg["seeds"]
    parts = [
        f"Experiment `{cfg['name']}` ({cfg['protocol']}), {len(seeds)} seed(s) "
        f"{seeds if len(seeds) <= 10 else str(seeds[:10])[:-1] + ', …]'}; "
        "mean ± sample SD over seeds of the final (whole-stream) value.",
    ]
    if summary.manifest.get("smoke"):
        parts.append("**SMOKE RUN** (sample cap, one repetition): not the paper's protocol.")
    if cfg["reference"]["source"]:
        parts.append(f"Paper values: {cfg['reference']['source']}; Δ = ours − paper.")
    if cfg["reference"].get("notes"):
        parts.append(cfg["reference"]["notes"])
    caps = {s["label"]: s["max_samples"] for s in cfg["streams"] if s["max_samples"]}
    if caps:
        parts.append("Sample caps: " + ", ".join(f"{k} first {v}" for k, v in caps.items())
                     + ".")
    not_run = summary.manifest.get("not_run") or {}
    if not_run:
        parts.append("Not run here (data files not present): " + ", ".join(not_run) + ".")
    if summary.missing:
        parts.append(f"{len(summary.missing)} planned run(s) have no record yet.")
    if summary.failed:
        parts.append(f"{len(summary.failed)} run(s) failed: "
                     + "; ".join(f"{r['run_id']}: {r['error']}" for r in summary.failed[:5]))
    return " ".join(parts)


def to_markdown(summary: Summary) -> str:
    lines = [f"# {summary.config['name']}", "", caption(summary), ""]
    for s in summary.config["streams"]:
        header, rows = wide_rows(summary, s["label"])
        lines += [f"## {s['label']}", "", "| " + " | ".join(header) + " |",
                  "|" + "|".join("---" for _ in header) + "|"]
        lines += ["| " + " | ".join(r) + " |" for r in rows]
        lines.append("")
    return "\n".join(lines)


def write_tables(summary: Summary, out_dir: Path, formats: list[str]) -> list[Path]:
    written = []
    if "markdown" in formats:
        p = out_dir / "summary.md"
        atomic_write_bytes(p, to_markdown(summary).encode())
        written.append(p)
    if "csv" in formats:
        p = out_dir / "summary.csv"
        atomic_write_bytes(p, summary.table.to_csv(index=False, float_format="%.6g").encode())
        written.append(p)
    return written


def rich_tables(summary: Summary) -> list[Any]:
    from rich.table import Table

    out = []
    for s in summary.config["streams"]:
        header, rows = wide_rows(summary, s["label"])
        table = Table(title=s["label"], title_justify="left")
        for i, h in enumerate(header):
            table.add_column(h, justify="left" if i == 0 else "right", no_wrap=i == 0)
        for r in rows:
            table.add_row(*r)
        out.append(table)
    return out


def long_table(summary: Summary) -> pd.DataFrame:
    return summary.table.copy()
