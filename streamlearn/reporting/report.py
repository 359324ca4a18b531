"""Rebuild tables and plots of an experiment directory from its saved records alone."""

from __future__ import annotations

from pathlib import Path

from streamlearn.reporting import plots, tables
from streamlearn.reporting.summary import Summary, summarize


def build_report(out_dir: Path) -> tuple[Summary, list[Path]]:
    """Aggregate ``out_dir``'s records; write the tables and plots its config asks for."""
    summary = summarize(out_dir)
    outputs = summary.config["outputs"]
    written = tables.write_tables(summary, out_dir, outputs["tables"])
    if summary.runs:
        if "learning_curve" in outputs["plots"]:
            written += plots.learning_curves(summary, out_dir, outputs["curve_metric"])
        if "time" in outputs["plots"]:
            written += plots.time_bars(summary, out_dir)
    return summary, written
