"""``streamlearn data``: list, inspect, verify and download the papers' real datasets.

Mounted by the main CLI as ``app.add_typer(data_app, name="data")``. Each command only
parses options and calls library functions of :mod:`streamlearn.datasets._store`; errors
are raised as :class:`~streamlearn.base.UserError` / :class:`~streamlearn.base.DataError`
for the main CLI to print.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from streamlearn.base import DataError
from streamlearn.datasets import _store

__all__ = ["data_app"]

data_app = typer.Typer(
    name="data",
    help="List, inspect, verify and download the real datasets of the reproduced papers.",
    no_args_is_help=True,
    add_completion=False,
)

PAPER_NAMES = {
    "online_bls": "Online-BLS",
    "forks": "FORKS",
    "ridge_bls": "Ridge-BLS",
    "fast_ons": "Fast-ONS",
}

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

_FILE_STYLE = {"ok": "green", "unverified": "cyan", "missing": "red", "mismatch": "bold red"}


def _console() -> Console:
    return Console(highlight=False, soft_wrap=False)


def _classes(spec: _store.DatasetSpec) -> str:
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
        typer.Option(help="Only datasets of this paper: online_bls, forks, ridge_bls, fast_ons."),
    ] = None,
) -> None:
    """Show every dataset of the four papers with its status in the data directory."""
    if paper is not None and paper not in PAPER_NAMES:
        from streamlearn.base import UserError

        raise UserError(f"Unknown paper {paper!r}; choose from {', '.join(PAPER_NAMES)}.")
    console = _console()
    ddir = _store.resolve_data_dir(data_dir)
    table = Table(title=f"Datasets in {ddir}", title_justify="left")
    for col in ("name", "paper", "task", "shape", "classes", "status"):
        table.add_column(col, overflow="fold")
    for name, spec in _store.DATASETS.items():
        if paper is not None and paper not in spec.papers:
            continue
        status = _store.dataset_status(name, data_dir)
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
            "Derived stream: adversarial (FORKS §6.4) builds b blocks x r repeats with "
            "flipped labels from a binary base dataset (german or codrna in the paper)."
        )


@data_app.command("info")
def info_command(
    name: Annotated[str, typer.Argument(help="Dataset name (see `streamlearn data list`).")],
    data_dir: DataDirOption = None,
) -> None:
    """Describe a dataset: shape, provenance, preprocessing and its files."""
    spec = _store.get_spec(name)
    status = _store.dataset_status(name, data_dir)
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
        ("data dir", str(_store.resolve_data_dir(data_dir))),
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


@data_app.command("verify")
def verify_command(
    name: Annotated[
        str | None, typer.Argument(help="Dataset name; all datasets when omitted.")
    ] = None,
    data_dir: DataDirOption = None,
    rehash: Annotated[
        bool, typer.Option("--rehash", help="Ignore the hash cache and re-read every file.")
    ] = False,
) -> None:
    """Check the SHA-256 of every present file; fail on any mismatch.

    With NAME, also fail when a file needed by the dataset's default stream is missing.
    """
    names = [name] if name is not None else list(_store.DATASETS)
    if name is not None:
        _store.get_spec(name)
    console = _console()
    table = Table(
        title=f"Verification in {_store.resolve_data_dir(data_dir)}", title_justify="left"
    )
    for col in ("dataset", "file", "state", "sha256"):
        table.add_column(col, overflow="fold")
    problems: list[str] = []
    n_ok = 0
    for n in names:
        status = _store.dataset_status(n, data_dir, use_cache=not rehash)
        needed = {f.path for f in status.spec.files_for()}
        for st in status.files:
            if st.state == "missing" and name is None:
                continue
            style = _FILE_STYLE.get(st.state, "")
            table.add_row(n, st.spec.path, f"[{style}]{st.state}[/{style}]", st.actual or "-")
            if st.state == "mismatch":
                problems.append(f"{st.path}: SHA-256 {st.actual}, expected {st.spec.sha256[0]}")
            elif st.state == "missing" and st.spec.path in needed:
                problems.append(f"{st.path}: missing")
            elif st.state == "ok":
                n_ok += 1
    console.print(table)
    if problems:
        raise DataError(
            "Verification failed:\n  "
            + "\n  ".join(problems)
            + "\nRe-download with `streamlearn data fetch NAME` or replace the files."
        )
    console.print(f"[green]{n_ok} file(s) verified[/green]; no mismatch.")


@data_app.command("fetch")
def fetch_command(
    name: Annotated[str, typer.Argument(help="Dataset name (see `streamlearn data list`).")],
    data_dir: DataDirOption = None,
    force: Annotated[bool, typer.Option(help="Download even files that verify.")] = False,
    timeout: Annotated[float, typer.Option(help="Network timeout in seconds.")] = 60.0,
) -> None:
    """Download a dataset's missing files from the official URLs and check their SHA-256."""
    from rich.progress import (
        BarColumn,
        DownloadColumn,
        Progress,
        TextColumn,
        TransferSpeedColumn,
    )

    _store.get_spec(name)
    console = _console()
    tasks: dict[str, int] = {}
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        DownloadColumn(),
        TransferSpeedColumn(),
        console=console,
        transient=False,
    ) as progress:

        def on_progress(fspec: _store.FileSpec, done: int, total: int | None) -> None:
            if fspec.path not in tasks:
                tasks[fspec.path] = progress.add_task(fspec.path, total=total)
            progress.update(tasks[fspec.path], completed=done, total=total)

        statuses = _store.fetch(name, data_dir, force=force, progress=on_progress, timeout=timeout)
    for st in statuses:
        style = _FILE_STYLE.get(st.state, "")
        console.print(f"  [{style}]{st.state:10s}[/{style}] {st.path}")
    console.print(f"{name}: {_store.dataset_status(name, data_dir).label}")
