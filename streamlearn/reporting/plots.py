"""Plots from saved records: learning curves (mean ± SD band; cumulative, and windowed,
faded and held-out when the records have them), per-sample time bars and metric-vs-parameter
plots of sweeps (mean ± SD error bars).

Axis labels, units and scales come from the records (``metric_info``, ``curve_axis``),
so a plot shows what the run measured even when the metric's class has changed since.
Labels are plain text: ``$`` in a label is a dollar sign, not the start of mathtext.
"""

from __future__ import annotations

import functools
import math
import numbers
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from streamlearn.file_names import slug
from streamlearn.reporting.figures import save_figure
from streamlearn.reporting.kinds import KINDS, record_curve
from streamlearn.reporting.summary import Summary


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


_F = TypeVar("_F", bound=Callable[..., Any])


def _plain_text(func: _F) -> _F:
    """Draw with mathtext off: labels come from configs, and ``"cost $5"`` or
    ``"x $\\frac$"`` must print as written, not fail to parse."""
    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        import matplotlib

        with matplotlib.rc_context({"text.parse_math": False}):
            return func(*args, **kwargs)

    return wrapper  # type: ignore[return-value]


def _plain_log_ticks(axis: Any) -> None:
    """Tick labels of a log axis as plain numbers (0.1, 1, 10, 100). Matplotlib writes
    them as mathtext (``$\\mathdefault{10^{2}}$``), which :func:`_plain_text` turns off, so
    they would print as that source text."""
    from matplotlib.ticker import FuncFormatter, NullFormatter

    axis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:g}"))
    axis.set_minor_formatter(NullFormatter())


def _legend_outside(ax: Any) -> None:
    """The legend to the right of the axes, where it cannot cover a line or a bar."""
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0)


def _save(fig, path: Path) -> None:
    save_figure(fig, path)  # the PNG and the SVG beside it


#: the file name prefix of each kind's learning curves (``curve_oca_SEA.png`` for the
#: cumulative one, as before; ``curve-windowed_oca_SEA.png``, ...)
CURVE_PREFIX = {"cumulative": "curve_", **{k: f"curve-{k}_" for k in KINDS}}


def curve_kind(path: Path) -> str | None:
    """The kind of a learning-curve PNG written by :func:`learning_curves` (None for any
    other file)."""
    for kind, prefix in CURVE_PREFIX.items():  # no prefix is the start of another
        if path.suffix == ".png" and path.name.startswith(prefix):
            return kind
    return None


@_plain_text
def learning_curves(summary: Summary, out_dir: Path, metric: str,
                    kind: str = "cumulative") -> list[Path]:
    """One PNG per stream: ``metric`` vs the records' curve axis (e.g. samples seen), one
    line per algorithm, the mean over seeds (and folds) with a ± SD band; ``kind``: the
    cumulative curve, or the windowed, faded or held-out one
    (:mod:`streamlearn.reporting.kinds`)."""
    plt = _pyplot()
    m = summary.display(metric)
    suffix = "" if kind == "cumulative" else " " + summary.suffix(kind)
    over = "folds × seeds" if summary.folds else "seeds"
    written = []
    for s in summary.config["streams"]:
        fig, ax = plt.subplots(figsize=(6.4, 4.0))
        drawn = []
        for a in summary.config["algorithms"]:
            runs, curves = [], []
            for r in summary.runs:
                if r["stream"] == s["label"] and r["algorithm"] == a["label"]:
                    curve = record_curve(r, metric, kind)
                    if curve is not None:
                        runs.append(r)
                        curves.append(curve)
            if not runs:
                continue
            t = np.asarray(curves[0][0], dtype=float)
            ys = np.array([c[1] for c in curves if len(c[1]) == t.size],
                          dtype=float) * m.scale
            mean = ys.mean(axis=0)
            line, = ax.plot(t, mean, label=a["label"], lw=1.4)
            if ys.shape[0] > 1:
                sd = ys.std(axis=0, ddof=1)
                ax.fill_between(t, mean - sd, mean + sd, color=line.get_color(), alpha=0.2,
                                lw=0)
            drawn.extend(runs)
        if not drawn:
            plt.close(fig)
            continue
        ax.set_xlabel(summary.curve_axis(drawn))
        ax.set_ylabel(m.axis_label() + suffix)
        ax.set_title(f"{s['label']}: {m.label}{suffix} (mean ± SD over {over})")
        ax.grid(alpha=0.3)
        _legend_outside(ax)
        path = out_dir / f"{CURVE_PREFIX[kind]}{slug(metric)}_{slug(s['label'])}.png"
        _save(fig, path)
        plt.close(fig)
        written.append(path)
    return written


@_plain_text
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
    # wide enough for the bars, but not so wide that a page scales its text away
    fig_width = min(16.0, max(6.4, 1.2 * len(streams) * max(1, len(algos) / 3)))
    fig, ax = plt.subplots(figsize=(fig_width, 4.0))
    x = np.arange(len(streams))
    for i, algo in enumerate(algos):
        sub = t[t["algorithm"] == algo].set_index("stream").reindex(streams)
        ax.bar(x + (i - (len(algos) - 1) / 2) * width, sub["mean"], width,
               yerr=sub["sd"].fillna(0), capsize=2, label=algo)
    ax.set_xticks(x, streams)
    ax.set_ylabel("µs per update" if update_only else "µs per sample (predict + update)")
    ax.set_yscale("log")
    _plain_log_ticks(ax.yaxis)
    ax.set_title(("Update" if update_only else "Per-sample") + " time, mean ± SD over seeds")
    ax.grid(alpha=0.3, axis="y")
    _legend_outside(ax)
    path = out_dir / "time_per_sample.png"
    _save(fig, path)
    plt.close(fig)
    return [path]


# --------------------------------------------------------------------------------------
# Sweeps: metric vs swept parameter
# --------------------------------------------------------------------------------------


@dataclass
class SweepLine:
    """One line of a sweep plot: mean ± SD over seeds at each x (NaN where no run)."""

    label: str
    mean: list[float]
    sd: list[float]
    n: list[int]


@dataclass
class SweepFigure:
    """The data of one sweep plot, exactly as drawn."""

    kind: str  # "algorithm" (a swept algorithm entry) or "stream" (a swept stream entry)
    group: str  # the entry's label template
    metric: str
    param: str  # the swept parameter on the x axis
    x: list[Any]  # its values, in the config's order
    scale: str  # x axis: "log", "linear" or "categorical"
    lines: list[SweepLine] = field(default_factory=list)
    title: str = ""
    #: swept parameters the runs did not use (``--smoke`` applies ``smoke_params`` over
    #: them), as "param=value": the x values are then only labels
    overridden: list[str] = field(default_factory=list)
    path: Path | None = None


def _is_number(v: Any) -> bool:
    return isinstance(v, numbers.Real) and not isinstance(v, bool) and math.isfinite(v)


def x_scale(values: list[Any]) -> str:
    """``"log"`` when every value is a positive number and they span more than two
    decades; ``"symlog"`` when they also include zero (log above the smallest positive
    value, linear below it); ``"linear"`` for other numbers, ``"categorical"`` otherwise."""
    if not values or not all(_is_number(v) for v in values):
        return "categorical"
    positive = [v for v in values if v > 0]
    if positive and min(values) >= 0 and max(positive) / min(positive) > 100:
        return "log" if len(positive) == len(values) else "symlog"
    return "linear"


def _group_title(template: str) -> str:
    """A sweep group's label template with each ``{field}`` shown as ``…``."""
    import re

    return re.sub(r"\{[^}]*\}", "…", template)


def _value_text(v: Any) -> str:
    return f"{v:g}" if isinstance(v, float) else str(v)


def _groups(entries: list[dict[str, Any]]) -> dict[tuple[str, tuple[str, ...]], list[dict]]:
    """Swept entries by (group label, swept parameter names), in config order."""
    out: dict[tuple[str, tuple[str, ...]], list[dict]] = {}
    for e in entries:
        sw = e.get("sweep")
        if isinstance(sw, dict) and isinstance(sw.get("values"), dict) and sw["values"]:
            key = (str(sw.get("group", e["label"])), tuple(sw["values"]))
            out.setdefault(key, []).append(e)
    return out


def _rest_label(variant: dict[str, Any], rest: tuple[str, ...]) -> str:
    values = variant["sweep"]["values"]
    return ", ".join(f"{p}={_value_text(values[p])}" for p in rest)


def _overridden(variants: list[dict[str, Any]], params: tuple[str, ...]) -> list[str]:
    """Swept parameters whose run value differs from the swept value (``--smoke`` merges
    ``smoke_params`` over the swept values), as ``"param=value"``."""
    out = []
    for v in variants:
        run_params = v.get("params") or {}
        for p in params:
            if p in run_params and run_params[p] != v["sweep"]["values"][p]:
                text = f"{p}={_value_text(run_params[p])}"
                if text not in out:
                    out.append(text)
    return out


def sweep_figures(summary: Summary) -> list[SweepFigure]:
    """The data of every sweep plot (see :func:`sweep_plots`): means and SDs are the
    summary table's (display units)."""
    cfg = summary.config
    run_rows = summary.table[summary.table["kind"] == "run"]
    cells = {(r["stream"], r["algorithm"], r["metric"]):
             (float(r["mean"]), float(r["sd"]), int(r["n"]))
             for r in run_rows.to_dict("records")}
    streams = [s["label"] for s in cfg["streams"]]
    algos = [a["label"] for a in cfg["algorithms"]]
    figures = []
    for kind, entries, others in (("algorithm", cfg["algorithms"], streams),
                                  ("stream", cfg["streams"], algos)):
        for (group, params), variants in _groups(entries).items():
            param, rest = params[0], params[1:]
            x = list(dict.fromkeys(v["sweep"]["values"][param] for v in variants))
            index = {repr(v): i for i, v in enumerate(x)}
            # one swept parameter: one figure, a line per other entry (stream or
            # algorithm); more: a figure per other entry, a line per value of the rest
            if not rest:
                panels = [(None, [(o, o, variants) for o in others])]
            else:
                rest_labels = list(dict.fromkeys(_rest_label(v, rest) for v in variants))
                panels = [(o, [(rl, o, [v for v in variants if _rest_label(v, rest) == rl])
                               for rl in rest_labels]) for o in others]
            overridden = _overridden(variants, params)
            for other, line_specs in panels:
                for metric in cfg["metrics"]:
                    m = summary.display(metric)
                    fig = SweepFigure(kind=kind, group=group, metric=metric, param=param,
                                      x=x, scale=x_scale(x), overridden=overridden)
                    fig.title = (f"{_group_title(group)}"
                                 f"{'' if other is None else ' on ' + other}: "
                                 f"{m.label} vs {param}")
                    for label, o, members in line_specs:
                        k = len(x)
                        line = SweepLine(label, [math.nan] * k, [math.nan] * k, [0] * k)
                        for v in members:
                            key = ((o, v["label"]) if kind == "algorithm"
                                   else (v["label"], o))
                            if (*key, metric) in cells:
                                i = index[repr(v["sweep"]["values"][param])]
                                line.mean[i], line.sd[i], line.n[i] = cells[(*key, metric)]
                        if any(line.n):
                            fig.lines.append(line)
                    if fig.lines:
                        fig.path = _sweep_path(fig, other)
                        figures.append(fig)
    _distinct_paths(figures)
    return figures


def _sweep_path(fig: SweepFigure, other: str | None) -> Path:
    # the label template without its {param} fields: "n3={n3}" names the file "n3"
    name = re.sub(r"\{[^{}]*\}", " ", fig.group)
    parts = ["sweep" if fig.kind == "algorithm" else "sweep-streams",
             slug(name) if slug(name) != "x" else slug(fig.param)]
    if other is not None:
        parts.append(slug(other))
    parts.append(slug(fig.metric))
    return Path("_".join(parts) + ".png")


def _distinct_paths(figures: list[SweepFigure]) -> None:
    """Two groups whose labels give the same slug get ``-2``, ``-3``, … suffixes."""
    used: set[str] = set()
    for f in figures:
        assert f.path is not None
        name, k = f.path.stem, 1
        while (name if k == 1 else f"{name}-{k}").casefold() in used:
            k += 1
        final = name if k == 1 else f"{name}-{k}"
        used.add(final.casefold())
        f.path = Path(final + ".png")


@_plain_text
def sweep_plots(summary: Summary, out_dir: Path) -> list[SweepFigure]:
    """Metric vs swept parameter, mean ± SD over seeds as error bars, one PNG per sweep
    group and metric (and, when a group sweeps several parameters, per stream or
    algorithm): x is the first swept parameter (log axis when its values are positive and
    span more than two decades, categories when they are not numbers); lines are the
    streams (algorithm sweeps) or algorithms (stream sweeps), or the values of the other
    swept parameters. Returns the figures' data with ``path`` set to the PNG written."""
    plt = _pyplot()
    figures = sweep_figures(summary)
    smoke = bool(summary.manifest.get("smoke"))
    for f in figures:
        m = summary.display(f.metric)
        fig, ax = plt.subplots(figsize=(6.4, 4.0))
        if f.scale == "categorical":
            xs = np.arange(len(f.x), dtype=float)
        else:
            xs = np.asarray(f.x, dtype=float)
        for line in f.lines:
            # categories have no order between them: a dotted guide, not a trend line
            ax.errorbar(xs, line.mean, yerr=np.nan_to_num(line.sd), marker="o", ms=4,
                        capsize=3, lw=1.3, ls=":" if f.scale == "categorical" else "-",
                        label=line.label)
        if f.scale == "log":
            ax.set_xscale("log")
            _plain_log_ticks(ax.xaxis)
        elif f.scale == "symlog":
            ax.set_xscale("symlog", linthresh=min(v for v in f.x if v > 0))
            _plain_log_ticks(ax.xaxis)
        if f.scale == "categorical":
            ax.set_xticks(xs, [_value_text(v) for v in f.x])
        elif len(f.x) <= 12:
            ax.set_xticks(xs, [_value_text(v) for v in f.x])
            ax.minorticks_off()
        ax.set_xlabel(f.param)
        ax.set_ylabel(m.axis_label())
        ax.set_title(("SMOKE RUN — " if smoke else "") + f.title
                     + "\n(mean ± SD over seeds)", fontsize=10)
        if f.overridden:
            ax.text(0.01, 0.01, f"runs used {', '.join(f.overridden)}, not the swept values",
                    transform=ax.transAxes, fontsize=7, color="firebrick", va="bottom")
        ax.grid(alpha=0.3)
        _legend_outside(ax)  # beside the axes, so it hides no point
        f.path = out_dir / f.path.name  # type: ignore[union-attr]
        _save(fig, f.path)
        plt.close(fig)
    return figures
