"""The tables and figures a report build wrote into an output directory, kept in a list
there (``.streamlearn-outputs.json``), so that a later build removes those it does not
write again.

A config changed and run again into the same directory (a stream or learner taken out, a
windowed metric dropped, ``csv`` no longer among the tables) had left the earlier config's
figures and tables beside the new ones (``curve_oce_Hyperplane.png`` of a stream no longer
run), looking like results of this config. Only names this list holds are removed: a file
the tool did not write (or wrote before the list existed) is never touched, and neither
are the run records, ``experiment.json`` or the records' archives, which are not outputs
of a build.

A build marks itself in progress in the list before it writes its first file
(:func:`start_build`) and ends the mark with the new list (:func:`replace_outputs`). Each
file is written atomically but the set is not: a build interrupted (Ctrl-C) or failing
half-way had left a summary.md of the new config beside the summary.csv of the earlier one,
unmarked. The mark stays after such a build (:func:`build_interrupted`), so the command
can say its tables may be partial, and the next build says it rewrites them.

Inside :func:`building`, every file goes through :func:`write_output`, which lists its name
before writing it: an interrupted build's files are on the list, so the next build removes
those it does not write again. Only the finished builds' names had been listed, and the
first build into a directory, interrupted, had left its figures unlisted for good.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path

from streamlearn.evaluation.records import atomic_write_bytes

#: the list of the files the last build wrote, in the output directory
LIST_NAME = ".streamlearn-outputs.json"
#: never an output of a build, whatever a list says
_NEVER = frozenset({"experiment.json", "runs", "runs.tar.xz", "predictions.tar.xz",
                    LIST_NAME, ".streamlearn.lock"})


def _read_list(out_dir: Path) -> dict:
    try:
        data = json.loads((Path(out_dir) / LIST_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def previous_outputs(out_dir: Path) -> list[str]:
    """The file names the last build wrote into ``out_dir`` (empty without a readable
    list: nothing is then known to be the tool's)."""
    names = _read_list(out_dir).get("written")
    if not isinstance(names, list):
        return []
    return [n for n in names if isinstance(n, str) and _plain_name(n)]


def build_interrupted(out_dir: Path) -> bool:
    """Whether the last build into ``out_dir`` started and did not finish: its tables
    and figures may be partly an earlier build's."""
    return _read_list(out_dir).get("building") is True


def start_build(out_dir: Path, previous: list[str]) -> None:
    """Mark a build in progress (before its first file is written); the names of the
    last finished build stay listed, so that a later build still removes those it does
    not write again."""
    _write_list(out_dir, previous, building=True)


@dataclass
class _Build:
    out_dir: Path
    previous: list[str]
    announced: set[str] = field(default_factory=set)


_ACTIVE: ContextVar[_Build | None] = ContextVar("streamlearn_output_build", default=None)


@contextmanager
def building(out_dir: Path, previous: list[str]) -> Iterator[None]:
    """Mark a build of ``out_dir`` in progress (:func:`start_build`) and list each file
    :func:`write_output` writes there before it is written, until the block ends."""
    start_build(out_dir, previous)
    token = _ACTIVE.set(_Build(Path(out_dir), list(previous)))
    try:
        yield
    finally:
        _ACTIVE.reset(token)


def write_output(path: Path, data: bytes) -> None:
    """Write a table, figure or page atomically; inside :func:`building`, its name is
    listed (the build still marked in progress) before the file is written."""
    path = Path(path)
    build = _ACTIVE.get()
    if (build is not None and path.parent == build.out_dir and _plain_name(path.name)
            and path.name not in build.announced):
        build.announced.add(path.name)
        _write_list(build.out_dir, sorted(set(build.previous) | build.announced),
                    building=True)
    atomic_write_bytes(path, data)


def _write_list(out_dir: Path, names: list[str], *, building: bool = False) -> None:
    data: dict = {"written": names}
    if building:
        data["building"] = True
    text = json.dumps(data, indent=1) + "\n"
    atomic_write_bytes(Path(out_dir) / LIST_NAME, text.encode("utf-8"))


def _plain_name(name: str) -> bool:
    """A file name of the directory itself (no folder, no ``..``), not a protected one."""
    return (name not in _NEVER and name not in ("", ".", "..")
            and Path(name).name == name and "/" not in name and "\\" not in name)


def _with_svg(written: list[Path]) -> list[Path]:
    """The files written: each figure's PNG and the SVG written beside it."""
    out = []
    for p in written:
        out.append(p)
        if p.suffix == ".png" and p.with_suffix(".svg").is_file():
            out.append(p.with_suffix(".svg"))
    return out


def replace_outputs(out_dir: Path, written: list[Path], previous: list[str]) -> list[Path]:
    """Record ``written`` (and each PNG's SVG) as ``out_dir``'s outputs, and remove the
    files of ``previous`` (the list before this build) that are not among them; the build
    is then no longer marked in progress. Returns the files removed."""
    out_dir = Path(out_dir)
    names = sorted({p.name for p in _with_svg(written) if p.parent == out_dir})
    keep = set(names)
    removed = []
    for name in previous:
        path = out_dir / name
        if name not in keep and path.is_file() and not path.is_symlink():
            path.unlink()
            removed.append(path)
    _write_list(out_dir, names)
    return removed
