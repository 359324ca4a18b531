"""Rebuild tables and plots of an experiment directory from its saved records alone."""

from __future__ import annotations

from pathlib import Path

from streamlearn.errors import UserError
from streamlearn.reporting import curves, output_files, plots, tables
from streamlearn.reporting.summary import Summary, summarize

#: the HTML page of ``streamlearn report --html``
HTML_NAME = "report.html"


def build_report(out_dir: Path, *, html: bool | None = None) -> tuple[Summary, list[Path]]:
    """Aggregate ``out_dir``'s records; write the tables and plots its config asks for
    (with the CSV tables, ``curves.csv``: every learning curve of every run), and the
    HTML page when ``html`` (None: when the last build wrote one, so that it shows these
    tables). The tables, plots and page an earlier build wrote that this one does not
    write again (a stream or learner since taken out of the config) are removed
    (:mod:`streamlearn.reporting.output_files`), and listed in ``summary.removed``. The
    build is marked in progress in that list until it has written everything, so an
    interrupted one is known (``output_files.build_interrupted``) and the next says it
    rewrote its files (``summary.rewrote_interrupted``).

    Records that are corrupt or incomplete are left out and listed in
    ``summary.problems``; the caller decides what that means (the CLI exits non-zero)."""
    out_dir = Path(out_dir)
    summary = summarize(out_dir)
    if not summary.runs and not summary.failed and not summary.manifest.get("not_run"):
        # Nothing to tabulate: writing would replace the tables already there (e.g. the
        # committed results of a fresh clone, whose run records are not in git) by empty
        # ones, and a measured result would be lost without a word.
        bad = f" ({len(summary.problems)} unusable)" if summary.problems else ""
        where = summary.archive or out_dir / "runs"
        raise UserError(
            f"{out_dir} holds no usable run record{bad} in {where}, so there "
            "is nothing to report; the tables and plots already there were left as they "
            "are. Run `streamlearn run CONFIG --out DIR` first (it writes the records and "
            "the report).")
    previous = output_files.previous_outputs(out_dir)
    summary.rewrote_interrupted = output_files.build_interrupted(out_dir)
    with output_files.building(out_dir, previous):  # the mark ended by replace_outputs
        written = _write_outputs(summary, out_dir, html, previous)
    summary.removed = output_files.replace_outputs(out_dir, written, previous)
    return summary, written


def _write_outputs(summary: Summary, out_dir: Path, html: bool | None,
                   previous: list[str]) -> list[Path]:
    """The tables, curves, plots and page of ``build_report``; returns the files written."""
    if summary.behind_archive:
        raise UserError(behind_archive_lines(summary)[0] + " The tables and plots were left "
                        "as they are.")
    outputs = summary.config["outputs"]
    written = tables.write_tables(summary, out_dir, outputs.get("tables", []))
    if "csv" in outputs.get("tables", []):
        written.append(curves.write_curves_csv(summary, out_dir))
    plot_kinds = outputs.get("plots", [])
    if summary.runs:
        if "learning_curve" in plot_kinds and outputs.get("curve_metric"):
            written += plots.learning_curves(summary, out_dir, outputs["curve_metric"])
            for kind in summary.kinds:  # the windowed, faded, held-out curves if any
                written += plots.learning_curves(summary, out_dir, outputs["curve_metric"],
                                                 kind)
        if "time" in plot_kinds:
            written += plots.time_bars(summary, out_dir)
        if "sweep" in plot_kinds:
            written += [f.path for f in plots.sweep_plots(summary, out_dir) if f.path]
    if html or (html is None and HTML_NAME in previous):
        from streamlearn.reporting.html import write_html

        written.append(write_html(summary, out_dir, written))
    return written


def problem_lines(summary: Summary) -> list[str]:
    """What the CLI says about records it could not use (empty when all are usable)."""
    if not summary.problems:
        return []
    lines = [f"{len(summary.problems)} record(s) could not be used and are left out of the "
             "tables:"]
    lines += [f"  {p.describe()}" for p in summary.problems]
    if summary.archive is not None:
        lines.append(f"They come from the archive {summary.archive}: restore it from git, or "
                     "`streamlearn records unpack` it, recompute those runs with "
                     "`streamlearn run` and `streamlearn records pack` the folder again.")
    else:
        lines.append("Delete these files and run `streamlearn run` with the same config "
                     "again to recompute them.")
    return lines


def behind_archive_lines(summary: Summary) -> list[str]:
    """``runs/`` lacks planned records its archive holds (read from ``runs/``, they are
    missing from the tables): what to do."""
    if not summary.behind_archive:
        return []
    out = Path(summary.out_dir or ".")
    return [f"{out / 'runs'} lacks {len(summary.behind_archive)} record(s) of planned runs "
            f"that {out / 'runs.tar.xz'} holds ({_some(summary.behind_archive)}), e.g. "
            f"after an interrupted `streamlearn records unpack`: `streamlearn records unpack "
            f"{out}` puts them there (or run the config again)."]


def status_lines(summary: Summary) -> list[str]:
    """Missing (not yet run or stale) and failed runs, one line each kind."""
    lines = behind_archive_lines(summary)
    if summary.missing:
        line = f"{len(summary.missing)} planned run(s) have no complete record yet"
        if summary.stale:
            line += (f" ({len(summary.stale)} of them have a record of an earlier config; "
                     "`streamlearn run` recomputes them)")
        lines.append(line + ": " + _some(summary.missing) + ".")
    lines += unplanned_lines(summary) + forced_lines(summary)
    if summary.failed:
        lines.append(f"{len(summary.failed)} run(s) failed: "
                     + "; ".join(f"{r['run_id']}: {r['error']}" for r in summary.failed[:5])
                     + ("; …" if len(summary.failed) > 5 else ""))
    return lines + warning_lines(summary)


def removed_lines(summary: Summary) -> list[str]:
    """The outputs of an earlier build that this one removed (not written again), and
    whether it rewrote those of an interrupted build."""
    lines = []
    if summary.rewrote_interrupted:
        lines.append("The last writing of the tables and plots here had been interrupted "
                     "(some could be of an earlier run or config): all are written again.")
    if summary.removed:
        lines.append(f"removed {len(summary.removed)} file(s) that an earlier report wrote "
                     "and this config's report does not (a stream, learner, metric or table "
                     f"taken out): {_some([p.name for p in summary.removed])}.")
    return lines


def unplanned_lines(summary: Summary) -> list[str]:
    """Records present that this config does not plan (left out of the tables)."""
    if not summary.unplanned:
        return []
    return [f"{len(summary.unplanned)} record(s) in the directory are not runs of this "
            f"config and are left out of the tables: {_some(summary.unplanned)} (a learner "
            f"added by an earlier --add-learner, or a config changed since; add it to the "
            f"config, or --add-learner it again, to show it)."]


def forced_lines(summary: Summary) -> list[str]:
    """Runs in the tables whose records an interrupted ``streamlearn run --force`` had
    still to redo (:class:`~streamlearn.evaluation.records.ForcedRuns`): from before the
    change it was run for."""
    from streamlearn.evaluation.records import ForcedRuns

    if summary.out_dir is None:
        return []
    try:
        left = ForcedRuns.read(summary.out_dir).run_ids
    except UserError as exc:
        return [str(exc)]
    shown = sorted(left & {str(r.get("run_id")) for r in summary.runs})
    if not shown:
        return []
    return [f"{len(shown)} run(s) in the tables still have their records from before an "
            f"interrupted `streamlearn run --force`: {_some(shown)}. `streamlearn run` "
            "(with or without --force) computes them again."]


def _some(run_ids: list[str], k: int = 5) -> str:
    """The first ``k`` run ids, and how many more."""
    more = f" and {len(run_ids) - k} more" if len(run_ids) > k else ""
    return ", ".join(run_ids[:k]) + more


def warning_lines(summary: Summary) -> list[str]:
    """Runs whose record carries warnings (e.g. recovered numerical breakdowns)."""
    warned = [r for r in summary.runs if r.get("warnings")]
    if not warned:
        return []
    return [f"{len(warned)} run(s) carry warnings: "
            + "; ".join(f"{r['run_id']}: {' '.join(r['warnings'])}" for r in warned[:5])
            + ("; …" if len(warned) > 5 else "")]
