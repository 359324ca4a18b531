"""The files a paper's table builder writes, and the rule that writes them.

A results folder holds committed tables while its run records (``runs/``) are git-ignored:
a fresh clone has the tables but not the records. So an output is written only when every
experiment folder (or input file) it needs is present with run records; the others are
left as committed, and the caller says which records are missing.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from streamlearn.errors import UserError


@dataclass(frozen=True)
class Output:
    """One file of a paper's results folder.

    ``build(results_dir)`` returns the file's text (and may write figures beside it);
    ``needs`` are paths relative to the results folder: experiment folders that must hold
    at least one complete run record, or input files (a name with a suffix) that must exist.
    """

    name: str
    build: Callable[[Path], str]
    needs: tuple[str, ...]


@dataclass
class WriteResult:
    """What :func:`write_outputs` did: files written, and outputs left with their missing inputs."""

    written: list[Path] = field(default_factory=list)
    not_written: dict[str, list[str]] = field(default_factory=dict)


def has_records(folder: Path) -> bool:
    """True when ``folder/runs`` holds a complete record of a successful run."""
    runs = folder / "runs"
    if not runs.is_dir():
        return False
    for path in sorted(runs.glob("*.json")):
        try:
            rec = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        if isinstance(rec, dict) and rec.get("status") == "ok" and rec.get("complete", True):
            return True
    return False


def missing_inputs(results_dir: Path, output: Output) -> list[str]:
    """The needs of ``output`` that are absent from ``results_dir``."""
    missing = []
    for need in output.needs:
        path = results_dir / need
        present = path.is_file() if path.suffix else has_records(path)
        if not present:
            missing.append(need)
    return missing


def select(outputs: Iterable[Output], only: Iterable[str] | None) -> list[Output]:
    """The outputs named in ``only`` (all when it is empty or None); an unknown name is a
    user error that lists the known ones."""
    outputs = list(outputs)
    wanted = [name for name in (only or []) if name]
    if not wanted:
        return outputs
    known = [o.name for o in outputs]
    unknown = sorted(set(wanted) - set(known))
    if unknown:
        raise UserError(f"unknown output(s): {', '.join(unknown)}; known: "
                        f"{', '.join(known) or 'none (no experiment folder here)'}")
    return [o for o in outputs if o.name in wanted]


def write_outputs(results_dir: Path, outputs: Iterable[Output],
                  report: Callable[[str], None] = print) -> WriteResult:
    """Write each output whose inputs are all present; ``report`` gets one line per output
    ("wrote PATH" or "not written: NAME (no run records in ...)")."""
    result = WriteResult()
    for output in outputs:
        missing = missing_inputs(results_dir, output)
        if missing:
            result.not_written[output.name] = missing
            folders = [str(results_dir / m) for m in missing if not Path(m).suffix]
            files = [str(results_dir / m) for m in missing if Path(m).suffix]
            why = ([f"no run records in {', '.join(folders)}"] if folders else []) + (
                [f"no file {', '.join(files)}"] if files else [])
            report(f"not written: {output.name} ({'; '.join(why)})")
            continue
        path = results_dir / output.name
        path.write_text(output.build(results_dir))
        result.written.append(path)
        report(f"wrote {path}")
    return result
