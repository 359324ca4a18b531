"""Plots from saved records: learning curves (mean ± SD band) and per-sample time bars."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np

from streamlearn.evaluation.records import atomic_write_bytes
from streamlearn.registry import get_metric
from streamlearn.reporting.summary import Summary
from streamlearn.reporting.tables import metric_header


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _save(fig, path: Path) -> None:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=120, bbox_inches="tight")
    atomic_write_bytes(path, buf.getvalue())


def learning_curves(summary: Summary, out_dir: Path, metric: str) -> list[Path]:
    """One PNG per stream: ``metric`` vs samples seen, one line per algorithm."""
    plt = _pyplot()
    scale = get_metric(metric).scale
    written = []
    for s in summary.config["streams"]:
        fig, ax = plt.subplots(figsize=(6.4, 4.0))
        drawn = 0
        for a in summary.config["algorithms"]:
            runs = [r for r in summary.runs
                    if r["stream"] == s["label"] and r["algorithm"] == a["label"]
                    and metric in r["curves"]]
            if not runs:
                continue
            t = np.asarray(runs[0]["curves"]["t"])
            ys = np.array([r["curves"][metric] for r in runs
                           if len(r["curves"][metric]) == t.size]) * scale
            mean = ys.mean(axis=0)
            line, = ax.plot(t, mean, label=a["label"], lw=1.4)
            if ys.shape[0] > 1:
                sd = ys.std(axis=0, ddof=1)
                ax.fill_between(t, mean - sd, mean + sd, color=line.get_color(), alpha=0.2,
                                lw=0)
            drawn += 1
        if drawn == 0:
            plt.close(fig)
            continue
        ax.set_xlabel("samples seen")
        ax.set_ylabel(metric_header(metric))
        ax.set_title(f"{s['label']}: {get_metric(metric).label} (mean ± SD over seeds)")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
        path = out_dir / f"curve_{metric}_{_slug(s['label'])}.png"
        _save(fig, path)
        plt.close(fig)
        written.append(path)
    return written


def time_bars(summary: Summary, out_dir: Path) -> list[Path]:
    """Per-sample time (µs), mean ± SD over seeds, grouped by stream: the update alone
    (Online-BLS Fig. 1) when every run timed it separately, else predict + update."""
    plt = _pyplot()
    runs = summary.table[summary.table["kind"] == "run"]
    upd = runs[runs["metric"] == "us_per_update"]
    both = runs[runs["metric"] == "us_per_sample"]
    update_only = not upd.empty and (upd["n"] == both["n"].to_numpy()).all() and upd["n"].sum()
    t = upd if update_only else both
    if t.empty or t["n"].sum() == 0:
        return []
    streams = list(dict.fromkeys(t["stream"]))
    algos = list(dict.fromkeys(t["algorithm"]))
    width = 0.8 / max(len(algos), 1)
    fig, ax = plt.subplots(figsize=(max(6.4, 1.2 * len(streams) * max(1, len(algos) / 3)), 4.0))
    x = np.arange(len(streams))
    for i, algo in enumerate(algos):
        sub = t[t["algorithm"] == algo].set_index("stream").reindex(streams)
        ax.bar(x + (i - (len(algos) - 1) / 2) * width, sub["mean"], width,
               yerr=sub["sd"].fillna(0), capsize=2, label=algo)
    ax.set_xticks(x, streams)
    ax.set_ylabel("µs per update" if update_only else "µs per sample (predict + update)")
    ax.set_yscale("log")
    ax.set_title(("Update" if update_only else "Per-sample") + " time, mean ± SD over seeds")
    ax.grid(alpha=0.3, axis="y")
    ax.legend(fontsize=8)
    path = out_dir / "time_per_sample.png"
    _save(fig, path)
    plt.close(fig)
    return [path]


def _slug(text: str) -> str:
    from streamlearn.evaluation.runner import slug

    return slug(text)
