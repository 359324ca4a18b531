"""``streamlearn data``: list, inspect, verify and download the papers' real datasets.

Mounted by the main CLI as ``app.add_typer(data_app, name="data")``. Each command only
parses options and calls library functions of :mod:`streamlearn.datasets.catalogue` and
:mod:`streamlearn.datasets.store`; errors are raised as
:class:`~streamlearn.errors.UserError` / :class:`~streamlearn.errors.DataError` for the main
CLI to print.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from streamlearn.datasets.catalogue import CATALOGUES, DATASETS, get_spec
from streamlearn.datasets.catalogue.spec import DatasetSpec, FileSpec
from streamlearn.datasets.store import downloads, locations, parsed_cache, verification
from streamlearn.errors import DataError, UserError

__all__ = ["data_app"]

data_app = typer.Typer(
    name="data",
    help="List, inspect, verify and download the real datasets of the reproduced papers.",
    no_args_is_help=True,
    add_completion=False,
)

#: Paper key -> display name, in paper order (from the catalogue modules).
PAPER_NAMES = {module.PAPER: module.PAPER_LABEL for module in CATALOGUES}

DataDirOption = Annotated[
    Path | None,
    typer.Option(
        "--data-dir",
        help="Data directory (default: $STREAMLEARN_DATA, then the per-user cache).",
        show_default=False,
    ),
]

_STATE_STYLE = {
    "verified": "green",
    "present": "cyan",
    "partial": "yellow",
    "missing": "red",
    "corrupt": "bold red",
}

_FILE_STYLE = {
    "ok": "green",
    "unverified": "cyan",
    "missing": "red",
    "mismatch": "bold red",
    "invalid": "bold red",
}


def _console() -> Console:
    return Console(highlight=False, soft_wrap=False)


def _classes(spec: DatasetSpec) -> str:
    return "-" if spec.n_classes is None else str(spec.n_classes)


def _human(n: int | None) -> str:
    if n is None:
        return "?"
    size = float(n)
    for unit in ("B", "kB", "MB", "GB"):
        if size < 1000 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1000
    return f"{n} B"  # pragma: no cover


@data_app.command("list")
def list_command(
    data_dir: DataDirOption = None,
    paper: Annotated[
        str | None,
        typer.Option(help=f"Only datasets of this paper: {', '.join(PAPER_NAMES)}."),
    ] = None,
) -> None:
    """Show every dataset of the four papers with its status in the data directory."""
    if paper is not None and paper not in PAPER_NAMES:
        raise UserError(f"Unknown paper {paper!r}; choose from {', '.join(PAPER_NAMES)}.")
    console = _console()
    ddir = locations.resolve_data_dir(data_dir)
    table = Table(title=f"Datasets in {ddir}", title_justify="left")
    for col in ("name", "paper", "task", "shape", "classes", "status"):
        table.add_column(col, overflow="fold")
    for name, spec in DATASETS.items():
        if paper is not None and paper not in spec.papers:
            continue
        status = verification.dataset_status(name, data_dir)
        style = _STATE_STYLE.get(status.state, "")
        table.add_row(
            name,
            ", ".join(PAPER_NAMES[p] for p in spec.papers),
            spec.task,
            spec.shape_text(),
            _classes(spec),
            f"[{style}]{status.label}[/{style}]",
        )
    console.print(table)
    if paper in (None, "forks"):
        console.print(
            "Derived stream: adversarial (FORKS Sec. 5.2) builds b blocks x r repeats with "
            "flipped labels from a binary base dataset (german or codrna in the paper)."
        )
    _print_dir_problem(console, ddir, data_dir)
    console.print(
        f"Parsed arrays are cached in {parsed_cache.parsed_cache_dir()} "
        "(`streamlearn data cache-clear` empties it)."
    )


def _print_dir_problem(console: Console, ddir: Path, data_dir: Path | None) -> None:
    """A warning when the data directory does not exist or is not a directory."""
    if ddir.is_dir():
        return
    what = "does not exist" if not ddir.exists() else "is not a directory"
    console.print(
        f"[yellow]The data directory {ddir} ({locations.data_dir_origin(data_dir)}) {what}: "
        f"every dataset shows as missing. Pass --data-dir or set ${locations.ENV_DATA}.[/yellow]"
    )


@data_app.command("info")
def info_command(
    name: Annotated[str, typer.Argument(help="Dataset name (see `streamlearn data list`).")],
    data_dir: DataDirOption = None,
) -> None:
    """Describe a dataset: shape, provenance, preprocessing and its files."""
    spec = get_spec(name)
    status = verification.dataset_status(name, data_dir)
    console = _console()
    console.print(f"[bold]{spec.name}[/bold]: {spec.title}")
    rows = [
        ("papers", ", ".join(PAPER_NAMES[p] for p in spec.papers)),
        ("task", spec.task),
        ("shape", f"{spec.shape_text()} (default part {spec.default_part!r})"),
        ("parts", ", ".join(f"{k}: {v if v is not None else '?'}" for k, v in spec.sizes.items())),
        ("classes", _classes(spec)),
        ("class names", ", ".join(spec.class_names) if spec.class_names else "-"),
        ("order", "natural (not shuffled)" if spec.natural_order else "shuffled per seed"),
        ("kind", spec.kind + (f" (for {spec.substitute_for})" if spec.substitute_for else "")),
        ("status", status.label),
        ("source", spec.source),
        ("data dir", str(locations.resolve_data_dir(data_dir))),
    ]
    for key, value in rows:
        console.print(f"  {key:12s} {value}")
    console.print("  preprocessing:")
    for step in spec.preprocessing:
        console.print(f"    - {step}")
    if spec.notes:
        console.print(f"  notes: {spec.notes}")
    table = Table(title="files", title_justify="left")
    for col in ("path", "group", "size", "state", "sha256 (reference)", "url"):
        table.add_column(col, overflow="fold")
    for st in status.files:
        style = _FILE_STYLE.get(st.state, "")
        ref = st.spec.sha256[0][:16] + "…" if st.spec.sha256 else f"({st.spec.hash_source})"
        req = "" if st.spec.required else " (optional)"
        table.add_row(
            st.spec.path,
            st.spec.group + req,
            _human(st.spec.size),
            f"[{style}]{st.state}[/{style}]",
            ref,
            st.spec.url or "-",
        )
    console.print(table)
    for st in status.files:
        if st.spec.note and st.state == "missing":
            console.print(f"  {st.spec.path}: {st.spec.note}")
    _print_dir_problem(console, locations.resolve_data_dir(data_dir), data_dir)


@data_app.command("verify")
def verify_command(
    name: Annotated[
        str | None, typer.Argument(help="Dataset name; all datasets when omitted.")
    ] = None,
    data_dir: DataDirOption = None,
    rehash: Annotated[
        bool,
        typer.Option("--rehash", hidden=True, help="Kept for old scripts: verify always rehashes."),
    ] = False,
) -> None:
    """Check the SHA-256 of every present file (read afresh, never from the hash cache).

    Fails (exit 3, listing the files) on a mismatch, on a directory or broken link where a
    file belongs, on a missing file that a dataset's default stream needs — for NAME, or
    for every dataset of which some file is present — and when the data directory holds no
    dataset file at all. Datasets with no file present are named, not failed; a missing
    file of another part (a test split) is listed as a warning.
    """
    del rehash  # every run re-reads the files: a restored mtime must not hide an edit
    names = [name] if name is not None else list(DATASETS)
    if name is not None:
        get_spec(name)
    ddir = locations.resolve_data_dir(data_dir)
    statuses = [verification.dataset_status(n, data_dir, use_cache=False) for n in names]
    if name is None and not any(st.present for status in statuses for st in status.files):
        raise DataError(_nothing_found_message(ddir, data_dir))
    console = _console()
    table = Table(title=f"Verification in {ddir}", title_justify="left")
    for col in ("dataset", "file", "state", "sha256"):
        table.add_column(col, overflow="fold")
    problems: list[str] = []
    partial: list[str] = []
    absent: list[str] = []
    counts = {"ok": 0, "unverified": 0}
    for status in statuses:
        if name is None and not any(st.present for st in status.files):
            absent.append(status.spec.name)  # never obtained: nothing to check
            continue
        needed = {f.path for f in status.spec.files_for()}
        for st in status.files:
            style = _FILE_STYLE.get(st.state, "")
            detail = st.actual or (st.problem and f"({st.problem})") or "-"
            table.add_row(
                status.spec.name, st.spec.path, f"[{style}]{st.state}[/{style}]", detail
            )
            if st.state == "mismatch":
                problems.append(f"{st.path}: SHA-256 {st.actual}, expected {st.spec.sha256[0]}")
            elif st.state == "invalid":
                problems.append(f"{st.path} {st.problem}")
            elif st.state == "missing" and st.spec.path in needed:
                problems.append(f"{st.path}: missing ({status.spec.name} cannot be loaded)")
            elif st.state == "missing" and st.spec.required:
                partial.append(
                    f"{st.path}: missing (the {st.spec.group!r} part of {status.spec.name} "
                    "cannot be loaded; its default stream can)"
                )
            elif st.state in counts:
                counts[st.state] += 1
    console.print(table)
    if problems:
        raise DataError(
            "Verification failed:\n  "
            + "\n  ".join(problems + partial)
            + "\nReplace these files with good copies (`streamlearn data fetch NAME` downloads "
            "those with an official URL)."
        )
    for line in partial:
        console.print(f"[yellow]{line}[/yellow]")
    if absent:
        console.print(f"Not in the data directory (not checked): {', '.join(absent)}.")
    unverified = (
        f", {counts['unverified']} present without a reference hash" if counts["unverified"] else ""
    )
    console.print(f"[green]{counts['ok']} file(s) verified[/green]{unverified}; no mismatch.")


def _nothing_found_message(ddir: Path, data_dir: Path | None) -> str:
    origin = locations.data_dir_origin(data_dir)
    if not ddir.exists():
        what = f"The data directory {ddir} ({origin}) does not exist"
    elif not ddir.is_dir():
        what = f"The data directory {ddir} ({origin}) is not a directory"
    else:
        examples = ", ".join(spec.files[0].path for spec in list(DATASETS.values())[:3])
        what = (
            f"No dataset file was found in {ddir} ({origin}); files are expected at paths "
            f"such as {examples}"
        )
    return (
        f"{what}, so nothing was verified. Pass --data-dir or set ${locations.ENV_DATA} to the "
        "folder that holds the data, or download a dataset with `streamlearn data fetch NAME` "
        "(`streamlearn data list` shows them)."
    )


@data_app.command("fetch")
def fetch_command(
    name: Annotated[str, typer.Argument(help="Dataset name (see `streamlearn data list`).")],
    data_dir: DataDirOption = None,
    force: Annotated[bool, typer.Option(help="Download even files that verify.")] = False,
    timeout: Annotated[float, typer.Option(help="Network timeout in seconds.")] = 60.0,
) -> None:
    """Download a dataset's missing files from the official URLs and check their SHA-256."""
    if not 0 < timeout < 1e6:  # also rejects nan
        raise UserError(f"--timeout must be a positive number of seconds, not {timeout}.")
    from rich.progress import (
        BarColumn,
        DownloadColumn,
        Progress,
        TaskID,
        TextColumn,
        TransferSpeedColumn,
    )

    get_spec(name)
    console = _console()
    tasks: dict[str, TaskID] = {}
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        DownloadColumn(),
        TransferSpeedColumn(),
        console=console,
        transient=False,
    ) as progress:

        def on_progress(fspec: FileSpec, done: int, total: int | None) -> None:
            if fspec.path not in tasks:
                tasks[fspec.path] = progress.add_task(fspec.path, total=total)
            progress.update(tasks[fspec.path], completed=done, total=total)

        statuses = downloads.fetch(
            name, data_dir, force=force, progress=on_progress, timeout=timeout
        )
    for st in statuses:
        style = _FILE_STYLE.get(st.state, "")
        console.print(f"  [{style}]{st.state:10s}[/{style}] {st.path}")
    console.print(f"{name}: {verification.dataset_status(name, data_dir).label}")


@data_app.command("cache-clear")
def cache_clear_command() -> None:
    """Delete the parsed-array cache (it is rebuilt on the next load); data files, in the
    data directory or the default one under the cache directory, are never touched."""
    folder = parsed_cache.parsed_cache_dir()
    n, freed = parsed_cache.clear()
    _console().print(f"Removed {n} file(s), {_human(freed)}, from {folder}.")
