"""The files a paper's table builder writes, and the rule that writes them.

A results folder holds committed tables and, where they were committed, its run records
as an archive (``runs.tar.xz``; ``runs/`` itself is git-ignored). So an output is written
only when every experiment folder (or input file) it needs is present with a complete,
current, successful record of every run its experiment.json plans (in ``runs/`` or the
archive); the others are left as committed, and the caller says which records are
missing. An output that reads saved predictions (``runs/*.pred.npz``)
needs them in ``runs/`` or in the folder's predictions archive (``predictions.tar.xz``,
written only on request: ``streamlearn records pack --predictions``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from streamlearn.errors import UserError
from streamlearn.evaluation import record_archive


@dataclass(frozen=True)
class Output:
    """One file of a paper's results folder.

    ``build(results_dir)`` returns the file's text (and may write figures beside it);
    ``needs`` are paths relative to the results folder: experiment folders that must hold
    at least one complete run record, or input files (a name with a suffix) that must exist;
    with ``predictions`` the experiment folders must also hold saved predictions.
    """

    name: str
    build: Callable[[Path], str]
    needs: tuple[str, ...]
    predictions: bool = False


@dataclass
class WriteResult:
    """What :func:`write_outputs` did: files written, and outputs left with their missing inputs."""

    written: list[Path] = field(default_factory=list)
    not_written: dict[str, list[str]] = field(default_factory=dict)


def has_records(folder: Path) -> bool:
    """True when ``folder`` holds a complete record of a successful run (in ``runs/`` or
    its archive)."""
    return any(rec.get("status") == "ok" and rec.get("complete", True)
               for rec in record_archive.store(folder).records())


def runs_without_a_result(folder: Path) -> str:
    """How many planned runs of ``folder`` lack a complete, current, successful record
    (missing, failed, stale or unusable), naming the unusable records ("" when none
    does): an output built from it would leave their rows out (a table of Fig. 1 had
    been written without its M = 1000 row, exit 0)."""
    from streamlearn.reporting.summary import sort_records

    try:
        _, _, missing, failed, problems, stale = sort_records(folder)
    except (UserError, OSError, ValueError, KeyError):
        return ""  # no manifest to plan by: has_records alone decides
    lacking = len(missing) + len(failed) + len(problems) + len(stale)
    if not lacking:
        return ""
    text = f"{lacking} planned run(s) without a result"
    if problems:  # a truncated record had been counted like one not yet run
        text += (f"; {len(problems)} record(s) unusable: "
                 + "; ".join(p.describe() for p in problems[:2])
                 + ("; …" if len(problems) > 2 else ""))
    return text


def has_predictions(folder: Path) -> bool:
    """True when ``folder`` holds saved predictions (``runs/*.pred.npz`` or its predictions
    archive) where its records are read from."""
    return record_archive.has_predictions(folder)


def missing_inputs(results_dir: Path, output: Output) -> list[str]:
    """The needs of ``output`` that are absent from ``results_dir`` (an experiment folder
    with records but without the saved predictions it needs: ``<folder> (predictions)``)."""
    missing = []
    for need in output.needs:
        path = results_dir / need
        if path.suffix:
            if not path.is_file():
                missing.append(need)
        elif not has_records(path):
            missing.append(need)
        elif (lacking := runs_without_a_result(path)):
            missing.append(f"{need} ({lacking})")
        elif output.predictions and not has_predictions(path):
            missing.append(f"{need} (predictions)")
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


def missing_reason(results_dir: Path, missing: list[str]) -> str:
    """Why an output was not written, from :func:`missing_inputs`."""
    preds = [str(results_dir / m.removesuffix(" (predictions)")) for m in missing
             if m.endswith(" (predictions)")]
    partial = [f"{results_dir / m.split(' (', 1)[0]} ({m.split(' (', 1)[1]}"
               for m in missing if " without a result" in m]
    rest = [m for m in missing
            if not m.endswith(" (predictions)") and " without a result" not in m]
    folders = [str(results_dir / m) for m in rest if not Path(m).suffix]
    files = [str(results_dir / m) for m in rest if Path(m).suffix]
    why = ([f"no run records in {', '.join(folders)}"] if folders else []) + (
        [f"no file {', '.join(files)}"] if files else []) + (
        [f"not every run recorded in {', '.join(partial)}"] if partial else []) + (
        [f"no saved predictions in {', '.join(preds)} (no predictions.tar.xz: run the "
         "config, then `streamlearn records pack --predictions`)"] if preds else [])
    return "; ".join(why)


def write_outputs(results_dir: Path, outputs: Iterable[Output],
                  report: Callable[[str], None] = print) -> WriteResult:
    """Write each output whose inputs are all present; ``report`` gets one line per output
    ("wrote PATH" or "not written: NAME (no run records in ...)")."""
    result = WriteResult()
    for output in outputs:
        missing = missing_inputs(results_dir, output)
        if missing:
            result.not_written[output.name] = missing
            why = missing_reason(results_dir, missing)
            report(f"not written: {output.name} ({why})")
            continue
        path = results_dir / output.name
        path.write_text(output.build(results_dir))
        result.written.append(path)
        report(f"wrote {path}")
    return result
