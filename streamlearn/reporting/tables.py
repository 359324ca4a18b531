"""Result tables (Markdown, CSV, Rich) with the paper's value beside ours.

Values are shown as the run records say (:mod:`streamlearn.reporting.display`): percent
metrics with two decimals, error metrics with four significant digits (an MSE of 9.1e-4
reads 0.00091), times in µs with two decimals.

The Rich (terminal) table is the Markdown table when the terminal is wide enough for it
without wrapping a cell; otherwise it is stacked: one block per algorithm, one line per
metric, and a note points to ``summary.md`` for the wide table.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pandas as pd

from streamlearn.file_names import printable
from streamlearn.protocols.preparation import cap_applied
from streamlearn.reporting.display import (
    fmt_difference,
    fmt_mean_sd,
    fmt_reference,
    metric_display,
)
from streamlearn.reporting.kinds import folds_description, kind_description
from streamlearn.reporting.machine import load_range, timing_lines
from streamlearn.reporting.output_files import write_output
from streamlearn.reporting.summary import Summary


def metric_header(metric: str, summary: Summary | None = None) -> str:
    """Column header / axis label of ``metric``: label and unit, e.g. ``OCA (%)``; a row of
    another kind with its suffix, e.g. ``OCA (%) w=500``."""
    m = summary.display(metric) if summary is not None else metric_display(metric)
    if summary is not None and metric in summary.kind_keys:
        return f"{m.axis_label()} {summary.suffix(summary.kind_keys[metric][1])}"
    return m.axis_label()


class _StreamView:
    """The cells of one stream's table, shared by the wide and the stacked layouts.

    ``kind``: None for every column (the config's metrics, then the rows of the other
    kinds, then the times); ``"cumulative"`` for the config's metrics and the times;
    ``"windowed"``, ``"fading"`` or ``"holdout"`` for that kind's rows alone."""

    def __init__(self, summary: Summary, stream: str, kind: str | None = None) -> None:
        t = summary.table[summary.table["stream"] == stream]
        self.summary = summary
        self.stream = stream
        if kind is None:
            self.metrics = summary.metrics + list(summary.kind_keys)
        elif kind == "cumulative":
            self.metrics = summary.metrics
        else:
            self.metrics = summary.kind_keys_of(kind)
        self.with_times = kind in (None, "cumulative")
        self.absent = ("not run here" if stream in (summary.manifest.get("not_run") or {})
                       else "—")
        # paper/Δ columns only for the metrics with a reference value for this stream
        self.ref_metrics = set(t.loc[t["paper"].notna(), "metric"])
        upd = t[t["metric"] == "us_per_update"]
        self.has_update = bool((upd["n"] > 0).any())
        self.timings = ["us_per_sample"] + (["us_per_update"] if self.has_update else [])
        self.timings += [name for name in ("cpu_us_per_sample", "samples_per_cpu_second")
                         if bool((t.loc[t["metric"] == name, "n"] > 0).any())]
        self.algorithms = {algo: t[t["algorithm"] == algo].set_index("metric")
                           for algo in dict.fromkeys(t["algorithm"])}

    def cited(self, algo: str) -> bool:
        return bool((self.algorithms[algo]["kind"] == "cited").all())

    def runs(self, algo: str) -> int:
        """Complete records of (stream, algo): counted from the records, not from a
        timing column (a protocol may not time per sample)."""
        return sum(1 for r in self.summary.runs
                   if r["stream"] == self.stream and r["algorithm"] == algo)

    def cells(self, algo: str, metric: str) -> tuple[str, str, str]:
        """(ours, paper, Δ) of one metric of one algorithm."""
        a = self.algorithms[algo]
        if metric not in a.index:
            return "—", "", ""
        r = a.loc[metric]
        m = self.summary.display(metric)
        if self.cited(algo):
            ours = "—"
        else:
            ours = fmt_mean_sd(m, r["mean"], r["sd"], int(r["n"]))
            ours = self.absent if ours == "—" else ours
        return ours, fmt_reference(m, r["paper"]), fmt_difference(m, r["diff"])

    def timing(self, algo: str, name: str) -> str:
        if self.cited(algo):
            return ""
        r = self.algorithms[algo].loc[name]
        return fmt_mean_sd(self.summary.display(name), r["mean"], r["sd"], int(r["n"]))


def wide_rows(summary: Summary, stream: str,
              kind: str | None = None) -> tuple[list[str], list[list[str]]]:
    """Header and rows of one stream's table (one row per algorithm); ``kind`` chooses
    the columns (see :class:`_StreamView`; a table of another kind has no cited entry)."""
    v = _StreamView(summary, stream, kind)
    timings = v.timings if v.with_times else []
    header = ["Algorithm"]
    for metric in v.metrics:
        header.append(metric_header(metric, summary))
        if metric in v.ref_metrics:
            header += ["paper", "Δ"]
    header += [summary.display(name).label for name in timings] + ["runs"]
    rows = []
    for algo in v.algorithms:
        cited = v.cited(algo)
        if cited and not v.with_times:
            continue
        row = [f"{algo} (cited)" if cited else algo]
        for metric in v.metrics:
            ours, paper, diff = v.cells(algo, metric)
            row += [ours, paper, diff] if metric in v.ref_metrics else [ours]
        row += [v.timing(algo, name) for name in timings]
        row.append("cited" if cited else str(v.runs(algo)))
        rows.append(row)
    return header, rows


def stacked_rows(summary: Summary, stream: str) -> tuple[list[str], list[list[list[str]]]]:
    """Header and blocks of one stream's narrow table: one block per algorithm, one row
    per metric (then the times), columns algorithm, metric, ours, and paper and Δ when the
    stream has reference values."""
    v = _StreamView(summary, stream)
    with_ref = bool(v.ref_metrics)
    header = ["Algorithm", "Metric", "mean ± SD"] + (["paper", "Δ"] if with_ref else [])
    blocks = []
    for algo in v.algorithms:
        cited = v.cited(algo)
        names = [algo, "(cited)" if cited else f"{v.runs(algo)} run(s)"]
        block = []
        for metric in v.metrics:
            ours, paper, diff = v.cells(algo, metric)
            block.append([metric_header(metric, summary), ours]
                         + ([paper, diff] if with_ref else []))
        if not cited:
            for name in v.timings:
                block.append([summary.display(name).label, v.timing(algo, name)]
                             + (["", ""] if with_ref else []))
        for i, row in enumerate(block):
            row.insert(0, names[i] if i < len(names) else "")
        blocks.append(block)
    return header, blocks


def cap_captions(summary: Summary) -> list[str]:
    """Each capped stream's ``max_samples`` as the runs applied it: ``D first 2000``, or
    ``D whole (not longer than 2000)`` when its records say the cap did not cut it (a
    2,310-sample stream had been captioned "first 6000", and a smoke run's 200-sample
    stream "first 2000"). Records that predate the preprocessing steps keep ``first``."""
    out = []
    for s in summary.config["streams"]:
        cap = s.get("max_samples")
        if not cap:
            continue
        steps = [r["stream_info"]["runner_preprocessing"] for r in summary.runs
                 if r.get("stream") == s["label"] and isinstance(r.get("stream_info"), dict)
                 and isinstance(r["stream_info"].get("runner_preprocessing"), list)]
        if steps and not any(cap_applied(st, int(cap)) for st in steps):
            out.append(f"{s['label']} whole (not longer than {cap})")
        else:
            out.append(f"{s['label']} first {cap}")
    return out


def caption(summary: Summary) -> str:
    cfg = summary.config
    seeds = cfg["seeds"]
    over = "folds × seeds" if summary.folds else "seeds"
    parts = [
        f"Experiment `{cfg['name']}` ({cfg['protocol']}), {len(seeds)} seed(s) "
        f"{seeds if len(seeds) <= 10 else str(seeds[:10])[:-1] + ', …]'}; "
        f"mean ± sample SD over {over} of the final (whole-stream) value.",
    ]
    if summary.folds:
        parts.append(folds_description(summary.folds))
    for kind, params in summary.kinds.items():
        parts.append(kind_description(kind, params))
        shown = {metric for metric, kd in summary.kind_keys.values() if kd == kind}
        absent = [summary.display(m).label for m in summary.metrics if m not in shown]
        if absent:
            parts.append(f"No {summary.suffix(kind)} value of: {', '.join(absent)}.")
    if summary.manifest.get("smoke"):
        parts.append("**SMOKE RUN** (sample cap, one repetition): not the paper's protocol.")
    if cfg["reference"].get("source"):
        parts.append(f"Paper values: {cfg['reference']['source']}; Δ = ours − paper.")
    if cfg["reference"].get("notes"):
        parts.append(cfg["reference"]["notes"])
    caps = cap_captions(summary)
    if caps:
        parts.append("Sample caps: " + ", ".join(caps) + ".")
    prefixes: dict[str, set[int]] = {}
    for r in summary.runs:
        for m, T in (r.get("metric_prefix") or {}).items():
            prefixes.setdefault(m, set()).add(int(T))
    if prefixes:
        parts.append("Final values on a prefix (the comparator's cap): " + "; ".join(
            f"{summary.display(m).label} on the first "
            f"{' / '.join(f'{T:,}' for T in sorted(Ts))} predictions"
            for m, Ts in prefixes.items()) + ".")
    not_run = summary.manifest.get("not_run") or {}
    if not_run:
        parts.append("Not run here (data files not present): " + ", ".join(not_run) + ".")
    if summary.missing:
        parts.append(f"{len(summary.missing)} planned run(s) have no record yet.")
    t = summary.table
    if bool(((t["kind"] == "run") & (t["n"] > 0) & t["mean"].isna()).any()):
        parts.append("A “—” with runs counted: the value is NA in at least one of them, so "
                     "no mean or SD is taken over the others (e.g. the updates after a "
                     "failed factorisation in the incremental-nodes protocol).")
    if summary.problems:
        parts.append(f"{len(summary.problems)} record(s) are corrupt or incomplete and left "
                     "out: " + "; ".join(f"{p.run_id} ({p.kind})"
                                          for p in summary.problems[:5])
                     + ("; …" if len(summary.problems) > 5 else "") + ".")
    if summary.failed:
        parts.append(f"{len(summary.failed)} run(s) failed: "
                     + "; ".join(f"{r['run_id']}: {r['error']}" for r in summary.failed[:5]))
    return " ".join(parts)


def _md_cell(text: str) -> str:
    """A table cell: one line, ``\\`` and ``|`` escaped (a ``|`` would split the cell)."""
    return printable(str(text)).replace("\\", "\\\\").replace("|", "\\|")


def _md_heading(text: str) -> str:
    """A heading's text: one line; a trailing ``#`` escaped (it would close the heading)."""
    text = printable(str(text)).replace("\\", "\\\\")
    return text[:-1] + "\\#" if text.endswith("#") else text


def to_markdown(summary: Summary) -> str:
    """``summary.md``: a caption and one table per stream. Labels and messages are written
    as text on one line (labels from records of older versions are not validated)."""
    lines = [f"# {_md_heading(summary.config['name'])}", "", printable(caption(summary)), ""]
    if load_range(summary.runs) is not None:  # records that say how loaded the machine was
        for line in timing_lines(summary.runs):
            lines += [printable(line), ""]
    for s in summary.config["streams"]:
        header, rows = wide_rows(summary, s["label"])
        lines += [f"## {_md_heading(s['label'])}", "",
                  "| " + " | ".join(map(_md_cell, header)) + " |",
                  "|" + "|".join("---" for _ in header) + "|"]
        lines += ["| " + " | ".join(map(_md_cell, r)) + " |" for r in rows]
        lines.append("")
    return "\n".join(lines)


def write_tables(summary: Summary, out_dir: Path, formats: list[str]) -> list[Path]:
    written = []
    if "markdown" in formats:
        p = out_dir / "summary.md"
        write_output(p, to_markdown(summary).encode())
        written.append(p)
    if "csv" in formats:
        p = out_dir / "summary.csv"
        write_output(p, summary.table.to_csv(index=False, float_format="%.6g").encode())
        written.append(p)
    return written


def _wide_table(summary: Summary, stream: str, compact: bool = False) -> Any:
    """A row per algorithm; ``compact``: no rules but the header's, one space between
    columns (about 10 columns narrower), the form tried before the stacked table on a
    narrow terminal."""
    from rich import box
    from rich.table import Table
    from rich.text import Text

    header, rows = wide_rows(summary, stream)
    table = (Table(title=stream, title_justify="left", box=box.SIMPLE_HEAD, show_edge=False,
                   pad_edge=False, collapse_padding=True)
             if compact else Table(title=stream, title_justify="left"))
    for i, h in enumerate(header):
        table.add_column(h, justify="left" if i == 0 else "right", no_wrap=True)
    for r in rows:
        table.add_row(*map(Text, r))
    return table


def _stacked_table(summary: Summary, stream: str) -> Any:
    from rich.table import Table
    from rich.text import Text

    header, blocks = stacked_rows(summary, stream)
    table = Table(title=stream, title_justify="left")
    for i, h in enumerate(header):
        # the label columns may wrap (long labels); a value never does
        table.add_column(h, justify="left" if i < 2 else "right", no_wrap=i >= 2,
                         overflow="fold" if i < 2 else "ellipsis")
    for block in blocks:
        for j, row in enumerate(block):
            first = Text(row[0], style="dim" if j == 1 else "")
            table.add_row(first, *map(Text, row[1:]), end_section=j == len(block) - 1)
    return table


def _natural_width(table: Any) -> int:
    """Columns the table needs to show every cell on one line."""
    from rich.console import Console
    from rich.measure import Measurement

    console = Console(width=100_000, file=io.StringIO())
    return Measurement.get(console, console.options, table).maximum


def rich_tables(summary: Summary, width: int | None = None,
                written: bool = True) -> list[Any]:
    """Renderables for the terminal: the wide tables when they fit in ``width`` columns
    (or ``width`` is None), else the stacked tables and a note on where the wide table is
    (``written``: the table files were written by this command or the run)."""
    streams = [s["label"] for s in summary.config["streams"]]
    wide = [_wide_table(summary, s) for s in streams]
    if width is None or all(_natural_width(t) <= width for t in wide):
        return wide
    compact = [_wide_table(summary, s, compact=True) for s in streams]
    if all(_natural_width(t) <= width for t in compact):
        return compact
    from rich.text import Text

    out: list[Any] = [_stacked_table(summary, s) for s in streams]
    formats = summary.config["outputs"].get("tables", [])
    where = ("summary.md" if "markdown" in formats else
             "summary.csv" if "csv" in formats else None) if written else None
    note = f"Narrow terminal ({width} columns): one line per metric."
    if where is not None:
        path = summary.out_dir / where if summary.out_dir is not None else Path(where)
        note += f" The wide table (a row per algorithm) is in {path}."
    else:
        note += " Widen the terminal for a row per algorithm."
    out.append(Text(note, style="dim"))
    return out


def long_table(summary: Summary) -> pd.DataFrame:
    return summary.table.copy()
