"""``streamlearn run`` and ``streamlearn validate``: an experiment from its config, with
progress bars on stderr."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated

import typer

from streamlearn.cli._common import DataDirOption, _resolve_data_dir, console, err_console
from streamlearn.errors import UserError

# --------------------------------------------------------------------------------------
# Progress display
# --------------------------------------------------------------------------------------


class RichProgress:
    """Overall bar (runs) and per-run bar (samples, samples/s) on stderr."""

    def __init__(self, quiet: bool) -> None:
        self.quiet = quiet
        self._progress = None
        self._overall = None
        self._current = None
        self._last = 0.0

    def note(self, text: str) -> None:
        err_console.print(text, markup=False, highlight=False, soft_wrap=True)

    def start(self, total: int, pending: int) -> None:
        done = total - pending
        if self.quiet:
            err_console.print(f"{total} runs planned, {done} already complete, {pending} to run.")
            return
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        self._progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[rate]}"),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            console=err_console,
            transient=False,
        )
        self._progress.start()
        self._overall = self._progress.add_task("runs", total=total, completed=done, rate="")
        if done:
            err_console.print(f"{done} of {total} runs already complete (skipped).")

    def run_started(self, spec) -> None:
        if self._progress is None:
            return
        if self._current is not None:
            self._progress.remove_task(self._current)
        self._t0 = time.perf_counter()
        self._current = self._progress.add_task(
            f"  {spec.stream.label} · {spec.algorithm.label} · seed {spec.seed}",
            total=None, rate="")

    def run_progress(self, done: int, total: int) -> None:
        if self._progress is None or self._current is None:
            return
        now = time.perf_counter()
        rate = done / max(now - self._t0, 1e-9)
        self._progress.update(self._current, completed=done, total=total,
                              rate=f"{rate:,.0f} samples/s")

    def run_finished(self, outcome) -> None:
        if self.quiet:
            err_console.print(f"{outcome.status:7s} {outcome.run_id} ({outcome.seconds:.1f} s)"
                              + (f": {outcome.message}" if outcome.message else ""),
                              markup=False, highlight=False)
            return
        if outcome.status == "failed":
            from rich.text import Text

            err_console.print(Text.assemble(("failed ", "red"),
                                            f"{outcome.run_id}: {outcome.message}"))
        if self._progress is not None:
            self._progress.advance(self._overall)

    def cluster_status(self, workers: int, running: int, queued: int) -> None:
        """Dask backend: runs running and queued across the cluster (done: the bar)."""
        if self._progress is not None:
            self._progress.update(self._overall, description=(
                f"runs ({workers} worker(s): {running} running, {queued} queued)"))

    def stop(self) -> None:
        """End the display; safe to call more than once (the runner and the command both
        stop it when a run is interrupted)."""
        if self._progress is not None:
            if self._current is not None:
                self._progress.remove_task(self._current)
                self._current = None
            self._progress.stop()
            self._progress = None


# --------------------------------------------------------------------------------------
# Commands
# --------------------------------------------------------------------------------------

AddLearnerOption = Annotated[list[str] | None, typer.Option(
    "--add-learner", help="Add a learner to the config's algorithms without editing it: a "
    "registered name, module:Class or river:family.Estimator (repeatable). Runs already "
    "complete for the others are reused, so only the added learner's runs are computed.",
    show_default=False)]
ParamOption = Annotated[list[str] | None, typer.Option(
    "--param", help="KEY=VALUE parameter of the one --add-learner learner (repeatable; "
    "VALUE read as YAML: 0.5, true, [1, 2]).", show_default=False)]
LabelOption = Annotated[list[str] | None, typer.Option(
    "--label", help="Label of the --add-learner learner in tables and plots (default: its "
    "class or registered name).", show_default=False)]


def _load(config: Path, add_learner: list[str] | None, param: list[str] | None,
          label: list[str] | None):
    from streamlearn.config import load_config
    from streamlearn.config.loading import added_learner_entries
    from streamlearn.errors import ConfigError

    if (param or label) and not add_learner:
        raise ConfigError("--param and --label go with --add-learner.")
    extra = added_learner_entries(add_learner or [], param or [], label or [])
    return load_config(config, add_learners=extra)



def _output_dir(cfg, out: Path | None, smoke: bool) -> Path:
    """Absolute (against the working directory at the start), so records land there even
    if a learner changes the process's working directory."""
    if out is not None:
        return Path(out).absolute()
    base = Path(cfg.outputs.dir)
    return (base.parent / "smoke" / base.name if smoke else base).absolute()


def _dask_backend(backend: str, scheduler: str | None, jobs: int, retries: int,
                  worker_data_dir: str | None):
    """The Dask backend of ``run``, or None for worker processes on this machine.

    Workers get the client's data directory only when the user gave --data-dir; otherwise
    each resolves its own ($STREAMLEARN_DATA in its environment)."""
    if backend not in ("processes", "dask"):
        raise UserError(f"--backend {backend!r}: choose 'processes' or 'dask'.")
    if backend == "processes":
        if scheduler is not None:
            raise UserError("--scheduler needs --backend dask.")
        return None
    from streamlearn.evaluation.dask_backend import DaskBackend, require_dask

    require_dask()
    if scheduler is not None and jobs != 1:
        err_console.print(f"Note: --jobs {jobs} is ignored with --scheduler (the cluster's "
                          "workers run the runs).", markup=False, highlight=False)
    return DaskBackend(scheduler=scheduler, workers=jobs, retries=retries,
                       worker_data_dir=worker_data_dir)


def _left_by_force(out_dir: Path) -> str:
    """What the next run does with the runs an interrupted ``--force`` has not redone
    ("" when there are none)."""
    from streamlearn.evaluation.records import ForcedRuns

    try:
        left = len(ForcedRuns.read(out_dir).run_ids)
    except UserError:
        return ""
    if not left:
        return ""
    return (f" {left} run(s) that --force was to recompute still have their records from "
            "before it: the next run, with or without --force, computes them again and "
            "never reuses those records (without --force, it keeps the runs already "
            "redone).")


def run(
    config: Annotated[Path, typer.Argument(help="Experiment config (YAML).")],
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Output directory "
                   "(default: outputs.dir of the config; with --smoke, a smoke/ folder beside it).",
                   show_default=False)] = None,
    data_dir: DataDirOption = None,
    jobs: Annotated[int, typer.Option("--jobs", "-j", min=1,
                    help="Runs in parallel worker processes (same results as 1); with "
                    "--backend dask, the local cluster's workers.")] = 1,
    force: Annotated[bool, typer.Option("--force", help="Recompute runs that already have "
                     "a complete record.")] = False,
    smoke: Annotated[bool, typer.Option("--smoke", help="Small sample cap, one repetition, "
                     "tiny budgets: proves the config runs end to end.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bars "
                     "(for CI logs).")] = False,
    skip_missing_data: Annotated[bool, typer.Option(
        "--skip-missing-data", help="Leave out streams whose data files are not present "
        "(their tables show the paper's values only) instead of stopping with an error.")
    ] = False,
    backend: Annotated[str, typer.Option(
        "--backend", help="'processes' (this machine, --jobs worker processes) or 'dask' "
        "(Dask's distributed scheduler; needs pip install 'streamlearn[dask]'): a local "
        "cluster of --jobs single-threaded workers, or the cluster of --scheduler.")
    ] = "processes",
    scheduler: Annotated[str | None, typer.Option(
        "--scheduler", help="With --backend dask: address of a running Dask scheduler "
        "(tcp://HOST:PORT); it must answer within 10 s. Workers need no shared filesystem: "
        "they return records to this client and read data from their own "
        "$STREAMLEARN_DATA.", show_default=False)
    ] = None,
    retries: Annotated[int, typer.Option(
        "--retries", min=0, help="With --backend dask: resubmissions of a run whose worker "
        "died before it is recorded as failed.")] = 2,
    add_learner: AddLearnerOption = None,
    param: ParamOption = None,
    label: LabelOption = None,
) -> None:
    """Run an experiment: every (stream, algorithm, seed), test-then-train.

    Runs whose record is already complete are skipped, so an interrupted run resumes
    where it stopped. Tables and plots are written to the output directory.
    """
    from streamlearn.evaluation import record_archive
    from streamlearn.evaluation.runner import run_experiment
    from streamlearn.reporting import output_files, tables
    from streamlearn.reporting.report import (
        build_report,
        problem_lines,
        removed_lines,
        unplanned_lines,
        warning_lines,
    )

    cfg = _load(config, add_learner, param, label)
    for note in cfg.notes:
        err_console.print(note, markup=False, highlight=False, soft_wrap=True)
    if smoke:
        cfg = cfg.smoke_version()
    out_dir = _output_dir(cfg, out, smoke)
    data = _resolve_data_dir(data_dir)
    dask_backend = _dask_backend(backend, scheduler, jobs, retries,
                                 data if data_dir is not None else None)
    t0 = time.perf_counter()
    progress = RichProgress(quiet)
    built = []  # the tables, written under the run's lock of the output directory

    def write_report(result: object) -> None:
        built.append(build_report(out_dir))

    try:
        if dask_backend is not None and scheduler is not None:
            dask_backend.connect()  # a wrong address stops here, before anything is written
        result = run_experiment(cfg, out_dir, data_dir=data, jobs=jobs, force=force,
                                smoke=smoke, skip_missing_data=skip_missing_data,
                                progress=progress, backend=dask_backend, then=write_report)
    except KeyboardInterrupt:
        progress.stop()
        if output_files.build_interrupted(out_dir):
            err_console.print(
                f"\nInterrupted while the tables and plots were written: those in {out_dir} "
                "may be partial (some of an earlier run). Every finished run is saved; "
                f"`streamlearn report {out_dir}`, or the same command again, writes them "
                "all again.", markup=False, highlight=False)
        else:
            err_console.print(
                f"\nInterrupted. Finished runs are saved in {out_dir}; run the same command "
                f"again to resume.{_left_by_force(out_dir)}", markup=False, highlight=False,
                soft_wrap=True)
        raise typer.Exit(130) from None
    finally:
        if dask_backend is not None:
            dask_backend.close()
    summary, written = built[0]
    elapsed = time.perf_counter() - t0
    if not quiet:
        for table in tables.rich_tables(summary, width=console.width):
            console.print(table)
        n_seeds = len(summary.config.get("seeds", []))
        folds = {r["fold"]["folds"] for r in summary.runs
                 if isinstance(r.get("fold"), dict) and "folds" in r["fold"]}
        over = (f"{max(folds)} fold(s) × {n_seeds} seed(s)" if folds
                else f"{n_seeds} seed(s)")
        from streamlearn.components import get_protocol

        timed = get_protocol(str(cfg.protocol)).time_per_sample
        console.print(f"mean ± SD over {over} of each run's final value; "
                      f"µs/sample: {timed} (µs/update \"—\": "
                      "both in one compiled call).", style="dim", markup=False,
                      highlight=False)
    else:
        print(tables.to_markdown(summary))
    console.print(
        f"{result.n_run} run(s) computed, {result.n_skipped} already complete, "
        f"{len(result.failed)} failed, in {elapsed:.1f} s. Results: {out_dir}",
        markup=False, highlight=False, soft_wrap=True)
    for p in written:
        console.print(f"  wrote {p}", markup=False, highlight=False, soft_wrap=True)
    for line in removed_lines(summary):
        console.print(line, markup=False, highlight=False, soft_wrap=True)
    for line in problem_lines(summary):
        err_console.print(line, markup=False, highlight=False, soft_wrap=True)
    for line in warning_lines(summary) + unplanned_lines(summary):
        err_console.print(line, markup=False, highlight=False, soft_wrap=True)
    archive = record_archive.archive_path(out_dir)
    if archive.is_file() and result.n_run:
        console.print(f"{archive} (the committed records) still holds the "
                      f"earlier records: `streamlearn records pack {out_dir}` replaces them "
                      "with those of runs/, which the tables above were built from.",
                      markup=False, highlight=False, soft_wrap=True)
    if result.failed or summary.failed or summary.problems:
        raise typer.Exit(1)


def validate(
    config: Annotated[Path, typer.Argument(help="Experiment config (YAML).")],
    data_dir: DataDirOption = None,
    smoke: Annotated[bool, typer.Option("--smoke", help="Validate the smoke version.")] = False,
    add_learner: AddLearnerOption = None,
    param: ParamOption = None,
    label: LabelOption = None,
) -> None:
    """Check a config (names, types, ranges, data files) without running anything."""
    from streamlearn.evaluation.output_dir import check_not_data_dir, check_writable
    from streamlearn.evaluation.runner import (
        check_stream_data,
        check_stream_lengths,
        check_streams_available,
        plan_runs,
    )

    cfg = _load(config, add_learner, param, label)
    for note in cfg.notes:
        err_console.print(note, markup=False, highlight=False, soft_wrap=True)
    if smoke:
        cfg = cfg.smoke_version()
    check_streams_available(cfg, _resolve_data_dir(data_dir))
    check_stream_lengths(cfg, _resolve_data_dir(data_dir), reads_data=True)
    check_stream_data(cfg, _resolve_data_dir(data_dir), reads_data=True)
    check_writable(_output_dir(cfg, None, smoke), create=False)
    check_not_data_dir(_output_dir(cfg, None, smoke), _resolve_data_dir(data_dir))
    runs = plan_runs(cfg)
    folds = len({r.fold for r in runs if r.fold is not None})
    console.print(
        f"{config}: valid. {len(cfg.streams)} stream(s) × {len(cfg.algorithms)} algorithm(s) × "
        f"{len(cfg.seeds)} seed(s){f' × {folds} fold(s)' if folds else ''} = {len(runs)} runs; "
        f"protocol {cfg.protocol}; metrics "
        f"{', '.join(cfg.metrics)}; output {_output_dir(cfg, None, smoke)}.")
