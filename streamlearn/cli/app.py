"""Command-line interface: a thin Typer layer over the library.

Every command only parses options and calls a library function. User mistakes raise
:class:`~streamlearn.base.UserError`; :func:`main` prints them without a traceback and
exits with the error's code (2 for config errors, 3 for data errors).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from streamlearn.base import UserError

app = typer.Typer(
    name="streamlearn",
    help="Prequential experiment runner for online (streaming) machine learning research.\n\n"
    "Run `streamlearn run CONFIG.yaml` to run an experiment; `streamlearn COMMAND --help` "
    "for each command.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)
console = Console()
err_console = Console(stderr=True)


def _print_version(value: bool) -> None:
    if value:
        from streamlearn import __version__

        print(f"streamlearn {__version__}")
        raise typer.Exit()


@app.callback()
def _options(
    version: Annotated[bool, typer.Option(
        "--version", callback=_print_version, is_eager=True,
        help="Print the version of streamlearn and exit.")] = False,
) -> None:
    """Options that come before the command."""

DataDirOption = Annotated[
    str | None,
    typer.Option(
        "--data-dir",
        help="Directory with the real dataset files (default: $STREAMLEARN_DATA, then the "
        "per-user cache directory).",
        show_default=False,
    ),
]


def _resolve_data_dir(value: str | None) -> str | None:
    if value is not None:
        p = Path(value).expanduser()
        if not p.is_dir():
            raise UserError(f"--data-dir {value!r} is not a directory.")
        return str(p.resolve())
    env = os.environ.get("STREAMLEARN_DATA")
    return str(Path(env).expanduser().resolve()) if env else None


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


@app.command()
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
) -> None:
    """Run an experiment: every (stream, algorithm, seed), test-then-train.

    Runs whose record is already complete are skipped, so an interrupted run resumes
    where it stopped. Tables and plots are written to the output directory.
    """
    from streamlearn.config.validation import load_config
    from streamlearn.evaluation.runner import run_experiment
    from streamlearn.reporting import tables
    from streamlearn.reporting.report import build_report, problem_lines, warning_lines

    cfg = load_config(config)
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
    try:
        if dask_backend is not None and scheduler is not None:
            dask_backend.connect()  # a wrong address stops here, before anything is written
        result = run_experiment(cfg, out_dir, data_dir=data, jobs=jobs, force=force,
                                smoke=smoke, skip_missing_data=skip_missing_data,
                                progress=progress, backend=dask_backend)
    except KeyboardInterrupt:
        progress.stop()
        err_console.print(
            f"\nInterrupted. Finished runs are saved in {out_dir}; run the same command "
            "again to resume.")
        raise typer.Exit(130) from None
    finally:
        if dask_backend is not None:
            dask_backend.close()
    summary, written = build_report(out_dir)
    elapsed = time.perf_counter() - t0
    if not quiet:
        for table in tables.rich_tables(summary, width=console.width):
            console.print(table)
        n_seeds = len(summary.config.get("seeds", []))
        console.print(f"mean ± SD over {n_seeds} seed(s) of each run's final value; "
                      "µs/sample: predict + update time per sample (µs/update \"—\": "
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
    for line in problem_lines(summary):
        err_console.print(line, markup=False, highlight=False, soft_wrap=True)
    for line in warning_lines(summary):
        err_console.print(line, markup=False, highlight=False, soft_wrap=True)
    if result.failed or summary.failed or summary.problems:
        raise typer.Exit(1)


@app.command()
def validate(
    config: Annotated[Path, typer.Argument(help="Experiment config (YAML).")],
    data_dir: DataDirOption = None,
    smoke: Annotated[bool, typer.Option("--smoke", help="Validate the smoke version.")] = False,
) -> None:
    """Check a config (names, types, ranges, data files) without running anything."""
    from streamlearn.config.validation import load_config
    from streamlearn.evaluation.output_dir import check_writable
    from streamlearn.evaluation.runner import check_streams_available, plan_runs

    cfg = load_config(config)
    for note in cfg.notes:
        err_console.print(note, markup=False, highlight=False, soft_wrap=True)
    if smoke:
        cfg = cfg.smoke_version()
    check_streams_available(cfg, _resolve_data_dir(data_dir))
    check_writable(_output_dir(cfg, None, smoke), create=False)
    runs = plan_runs(cfg)
    console.print(
        f"{config}: valid. {len(cfg.streams)} stream(s) × {len(cfg.algorithms)} algorithm(s) × "
        f"{len(cfg.seeds)} seed(s) = {len(runs)} runs; protocol {cfg.protocol}; metrics "
        f"{', '.join(cfg.metrics)}; output {_output_dir(cfg, None, smoke)}.")


@app.command("list")
def list_(
    kind: Annotated[str, typer.Argument(help="algorithms, streams, metrics or protocols.")
                    ] = "algorithms",
) -> None:
    """List the registered algorithms, streams, metrics or protocols."""
    from rich.table import Table

    from streamlearn import components, registry
    components.load_all()
    tables_ = {
        "algorithms": registry.ALGORITHMS,
        "streams": registry.STREAMS,
        "metrics": registry.METRICS,
        "protocols": registry.PROTOCOLS,
    }
    if kind not in tables_:
        raise UserError(f"Unknown kind {kind!r}. Choose one of: {', '.join(tables_)}.")
    table = Table(title=kind)
    table.add_column("name")
    table.add_column("task")
    table.add_column("description")
    for name in sorted(tables_[kind]):
        obj = tables_[kind][name]
        table.add_row(name, getattr(obj, "task", ""), components.describe(obj))
    console.print(table)


@app.command()
def report(
    directory: Annotated[Path, typer.Argument(help="An output directory of `streamlearn run`.")],
    html: Annotated[bool, typer.Option("--html", help="Also write report.html: one "
                    "self-contained page (config, tables with paper and Δ, plots inline, "
                    "failed runs and their errors, versions).")] = False,
) -> None:
    """Rebuild tables and plots from the saved run records alone (nothing is re-run).

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
    for line in status_lines(summary):
        console.print(line, markup=False, highlight=False, soft_wrap=True)
    for p in written:
        console.print(f"  wrote {p}", markup=False, highlight=False, soft_wrap=True)
    problems = problem_lines(summary)
    for line in problems:
        err_console.print(line, markup=False, highlight=False, soft_wrap=True)
    if problems:
        raise typer.Exit(1)


@app.command()
def check(
    learner: Annotated[str, typer.Argument(
        help="A registered algorithm name or a dotted path 'package.module:Class'.")],
    param: Annotated[list[str] | None, typer.Option(
        "--param", "-p", help="A parameter for the checks, KEY=VALUE (VALUE read as YAML: "
        "0.1, true, null, text); repeat for several. Default: the learner's "
        "_test_params(), or its defaults.")] = None,
) -> None:
    """Run the conformance checks on a learner and say, in words, what fails.

    The checks are the ones every built-in learner passes (streamlearn.checks.learners): valid
    predictions, learning an easy stream, reproducibility, inputs left unchanged, pickling,
    and predict_learn_many equal to the per-sample loop. Exit code 1 when any fails.
    """
    from rich.text import Text

    from streamlearn import components
    from streamlearn.checks.learners import DESCRIPTIONS, run_checks

    cls = components.get_algorithm(learner)
    params = None
    if param:
        import yaml

        params = {}
        for item in param:
            key, sep, value = item.partition("=")
            if not sep or not key:
                raise UserError(f"--param {item!r}: write KEY=VALUE, e.g. --param lr=0.1.")
            try:
                params[key] = yaml.safe_load(value)
            except yaml.YAMLError:
                params[key] = value
        try:
            cls.check_param_names(params)
            cls(**params)
        except UserError as exc:
            raise UserError(f"--param: {exc}") from None
    else:
        try:
            cls(**next(iter(cls._test_params()), {}))
        except UserError as exc:
            raise UserError(f"{exc} Give the checks its parameters with --param KEY=VALUE."
                            ) from None
    results = run_checks(cls, params)
    n_param_sets = len({repr(r.params) for r in results})
    for r in results:
        what = DESCRIPTIONS.get(r.check, r.check)
        params = f" with {r.params}" if r.params and n_param_sets > 1 else ""
        if r.ok:
            console.print(Text.assemble(("PASS ", "green"), f"{r.check}{params}: {what}"))
        else:
            console.print(Text.assemble(("FAIL ", "bold red"), f"{r.check}{params}: {what}"))
            console.print(f"     problem: {r.message}", markup=False, highlight=False,
                          soft_wrap=True)
    failed = [r for r in results if not r.ok]
    console.print(f"{learner}: {len(results) - len(failed)} of {len(results)} checks passed.",
                  markup=False, highlight=False, soft_wrap=True)
    if failed:
        raise typer.Exit(1)


def _mount_data_commands() -> None:
    try:
        from streamlearn.cli.data import data_app
    except ImportError:  # pragma: no cover - the data layer ships with the package
        return
    app.add_typer(data_app, name="data", help="Real datasets: list, info, verify, fetch.")


_mount_data_commands()


def _whole_short_help() -> None:
    """The command list shows each command's first sentence whole, wrapped (Click would
    cut it at the terminal width with "...")."""
    from streamlearn.components import describe

    for info in app.registered_commands:
        if info.short_help is None and info.callback is not None:
            info.short_help = describe(info.callback)


_whole_short_help()


def main() -> None:
    """Console-script entry point: user errors → message + exit code, no traceback."""
    try:
        app()
    except UserError as exc:
        from rich.text import Text

        err_console.print(Text.assemble(("Error: ", "bold red"), str(exc)), highlight=False)
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        err_console.print("Interrupted.")
        sys.exit(130)


if __name__ == "__main__":
    main()
