"""``streamlearn report``: tables and plots rebuilt from saved run records."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from streamlearn.cli._common import console, err_console


def report(
    directory: Annotated[Path, typer.Argument(help="An output directory of `streamlearn run`.")],
    html: Annotated[bool, typer.Option("--html", help="Also write report.html: one "
                    "self-contained page (config, tables with paper and Δ, plots inline, "
                    "failed runs and their errors, versions).")] = False,
) -> None:
    """Rebuild tables and plots from the saved run records alone (nothing is re-run).

    The records are those of DIR/runs/, or, when it holds none, those of the archive
    DIR/runs.tar.xz (a committed results folder; `streamlearn records pack` writes it).

    With the CSV tables it also writes curves.csv: every learning curve of every run, one
    row per checkpoint (stream, algorithm, seed, fold, metric, kind, t, value; values in
    display units, as summary.csv), the windowed, faded and held-out ones included.

    Records that are corrupt (do not parse) or incomplete (lack a field the tables need)
    are left out and named, with the reason, on stderr; the exit code is then 1. Runs not
    yet recorded are only counted (exit code 0): a report of an unfinished experiment is
    normal.
    """
    from streamlearn.reporting import tables
    from streamlearn.reporting.report import build_report, problem_lines, status_lines

    summary, written = build_report(directory)
    if html:
        from streamlearn.reporting.html import write_html

        written.append(write_html(summary, directory, written))
    for table in tables.rich_tables(summary, width=console.width):
        console.print(table)
    if summary.archive is not None:
        console.print(f"Records read from {summary.archive} ({len(summary.runs)} usable).",
                      markup=False, highlight=False, soft_wrap=True)
    for line in status_lines(summary):
        console.print(line, markup=False, highlight=False, soft_wrap=True)
    for p in written:
        console.print(f"  wrote {p}", markup=False, highlight=False, soft_wrap=True)
    problems = problem_lines(summary)
    for line in problems:
        err_console.print(line, markup=False, highlight=False, soft_wrap=True)
    if problems:
        raise typer.Exit(1)
