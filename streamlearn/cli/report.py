"""``streamlearn report``: tables and plots rebuilt from saved run records."""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from streamlearn.cli._common import console, err_console

if TYPE_CHECKING:
    from streamlearn.reporting.summary import Summary


def report(
    directory: Annotated[Path, typer.Argument(help="An output directory of `streamlearn run`.")],
    html: Annotated[bool, typer.Option("--html", help="Also write report.html: one "
                    "self-contained page (config, tables with paper and Δ, plots inline, "
                    "failed runs and their errors, versions); once written, every later "
                    "report or run into DIR writes it again.")] = False,
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
    normal. While a `streamlearn run` is computing into DIR, the tables of its records so
    far are shown and no file is written (the run writes them when it ends). A folder that
    cannot be written (read-only) gets its tables shown, then the error (exit 4).
    """
    from streamlearn.atomic import OutputError
    from streamlearn.evaluation.output_dir import OutputDirBusy, OutputDirLock
    from streamlearn.reporting.report import build_report
    from streamlearn.reporting.summary import summarize

    with ExitStack() as held:
        if directory.is_dir():
            # held while the records are read and the tables written: otherwise a report
            # that read the records just before a run's last one could write its tables
            # just after the run's, and leave them a run short
            try:
                held.enter_context(OutputDirLock(directory))
            except OutputDirBusy as busy:
                summary = summarize(directory)
                _show(summary, None)
                console.print(
                    f"A streamlearn run (process {busy.holder}) is computing into "
                    f"{directory}: these are the tables of its records so far, and no file "
                    "was written (the run writes them when it ends).",
                    markup=False, highlight=False, soft_wrap=True)
                _exit_on_problems(summary)
                return
            except OutputError:
                pass  # a folder this user cannot write: writing the tables says so
        try:
            summary, written = build_report(directory, html=True if html else None)
        except OutputError:
            # a folder that cannot be written (read-only, disk full): the tables are still
            # shown, then the error (exit 4) says what was not written
            _show(summarize(directory), None)
            raise
    _show(summary, written)
    _exit_on_problems(summary)


def _show(summary: Summary, written: list[Path] | None) -> None:
    """The tables, the records' status and the files written (None: none may be)."""
    from streamlearn.reporting import tables
    from streamlearn.reporting.report import removed_lines, status_lines

    for table in tables.rich_tables(summary, width=console.width,
                                    written=written is not None):
        console.print(table)
    if summary.archive is not None:
        console.print(f"Records read from {summary.archive} ({len(summary.runs)} usable).",
                      markup=False, highlight=False, soft_wrap=True)
    for line in status_lines(summary):
        console.print(line, markup=False, highlight=False, soft_wrap=True)
    for p in written or []:
        console.print(f"  wrote {p}", markup=False, highlight=False, soft_wrap=True)
    for line in removed_lines(summary) if written is not None else []:
        console.print(line, markup=False, highlight=False, soft_wrap=True)


def _exit_on_problems(summary: Summary) -> None:
    from streamlearn.reporting.report import problem_lines

    problems = problem_lines(summary)
    for line in problems:
        err_console.print(line, markup=False, highlight=False, soft_wrap=True)
    if problems:
        raise typer.Exit(1)
