"""``streamlearn records``: the run records of a results folder, as a committed archive.

``pack`` writes ``DIR/runs.tar.xz`` from ``DIR/runs/`` (deterministic: the same records
give the same bytes), and with ``--predictions`` also ``DIR/predictions.tar.xz`` (for a
committed table computed from saved predictions); ``unpack`` writes them back into
``DIR/runs/``; ``diff`` compares two folders' records (does a rerun reproduce them?).
``streamlearn report`` and ``streamlearn tables`` read the archive when ``runs/`` holds no
record, so a committed results folder can be audited and its tables rebuilt without
rerunning (``make verify-results``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from streamlearn.cli._common import console

__all__ = ["records_app"]

records_app = typer.Typer(
    name="records",
    help="Pack a results folder's run records into runs.tar.xz (committed), unpack them, or "
    "compare two folders' records.",
    no_args_is_help=True,
    add_completion=False,
)

DirsArgument = Annotated[
    list[Path],
    typer.Argument(help="Output directories of `streamlearn run`, or folders above them "
                   "(every experiment folder below is taken).", show_default=False),
]


def _say(line: str) -> None:
    console.print(line, markup=False, highlight=False, soft_wrap=True)


def _experiments(dirs: list[Path], wanted: str) -> list[Path]:
    """The experiment folders (with an experiment.json) given or below those given; a
    folder below must hold ``wanted`` ("runs" or the archive) to be taken."""
    from streamlearn.errors import UserError

    out: list[Path] = []
    for d in dirs:
        if (d / "experiment.json").is_file():
            out.append(d)
            continue
        if not d.is_dir():
            raise UserError(f"{d} is not a directory.")
        found = sorted(p.parent for p in d.rglob("experiment.json")
                       if (p.parent / wanted).exists() and "smoke" not in p.parent.parts)
        if not found:
            raise UserError(f"{d} holds no experiment folder with {wanted}.")
        out += found
    return out


@records_app.command("pack", short_help="Write DIR/runs.tar.xz from DIR/runs/.")
def pack(
    dirs: DirsArgument,
    predictions: Annotated[bool, typer.Option(
        "--predictions", help="Also archive the runs' saved predictions (*.pred.npz) in "
        "DIR/predictions.tar.xz, for a committed table computed from them; a folder that "
        "has one keeps it up to date on every pack.")] = False,
) -> None:
    """Write DIR/runs.tar.xz from the records of DIR/runs/ (those of the runs its
    experiment.json plans, failed ones included; no predictions), replacing the archive.
    A record that does not parse (truncated) or is not marked complete is an error naming
    it, and nothing is written.

    The archive is deterministic (members sorted, fixed times and owners), so packing the
    same records again gives the same bytes. Commit it; runs/ stays git-ignored.
    """
    from streamlearn.evaluation import record_archive
    from streamlearn.evaluation.output_dir import OutputDirLock

    for d in _experiments(dirs, "runs"):
        # not while a run writes its records: the archive would miss the runs in flight
        with OutputDirLock(d, then="Pack its records when it has finished."):
            res = record_archive.pack(d, predictions=predictions)
        line = f"packed {res.path}: {res.records} record(s), {res.size / 1024:.1f} KiB"
        if res.unplanned_missing:
            line += f"; {len(res.unplanned_missing)} planned run(s) have no record"
        _say(line)
        if res.predictions:
            _say(f"packed {record_archive.predictions_path(d)}: {res.predictions} prediction "
                 f"file(s), {res.predictions_size / 1024:.1f} KiB")
        preds = [n for n in res.left_out if n.endswith(".pred.npz")]
        other = [n for n in res.left_out if not n.endswith(".pred.npz")]
        if preds:
            _say(f"  left out {len(preds)} prediction file(s) (*.pred.npz): archived only "
                 "with --predictions")
        if other:
            _say(f"  left out {len(other)} file(s) that are no planned run's record (or "
                 "another config's): "
                 + ", ".join(other[:5]) + (", …" if len(other) > 5 else ""))


@records_app.command("unpack", short_help="Write DIR/runs.tar.xz's records into DIR/runs/.")
def unpack(dirs: DirsArgument) -> None:
    """Write the records of DIR/runs.tar.xz (and the predictions of DIR/predictions.tar.xz,
    if any) into DIR/runs/ (e.g. to rerun a few runs:
    `streamlearn run` then skips the complete ones; `streamlearn records pack` after).

    A record already in runs/ with other bytes is an error, and nothing is written.
    """
    from streamlearn.evaluation import record_archive
    from streamlearn.evaluation.output_dir import OutputDirLock

    for d in _experiments(dirs, record_archive.ARCHIVE_NAME):
        # not while a run writes runs/: a record it just wrote could meet an archived one
        with OutputDirLock(d, then="Unpack the archive when it has finished."):
            written, same = record_archive.unpack(d)
        _say(f"unpacked {record_archive.archive_path(d)}: {len(written)} file(s) written "
             f"to {d / 'runs'}" + (f", {len(same)} already there" if same else ""))


@records_app.command("diff", short_help="Compare two folders' run records: does a rerun "
                     "reproduce them?")
def diff(
    committed: Annotated[Path, typer.Argument(
        help="A results folder (e.g. committed: its runs.tar.xz is read).",
        show_default=False)],
    rerun: Annotated[Path, typer.Argument(
        help="A folder of the same config's runs (e.g. `streamlearn run CONFIG --out DIR`).",
        show_default=False)],
    exact: Annotated[bool, typer.Option(
        "--exact", help="Require the same bits in every number (default: the same printed "
        "values; differences below the printed digits are listed).")] = False,
    subset: Annotated[bool, typer.Option(
        "--subset", help="Compare the runs both folders hold (a rerun of some seeds); "
        "without it a run only one folder holds is a difference.")] = False,
) -> None:
    """Compare two folders' run records, run by run and table cell by table cell: does a
    rerun reproduce the committed numbers?

    Runs are paired by run id. Of each pair the run's identity (stream, learner, seed,
    fold, specification, derived seeds) must agree; every number of the record (final
    metrics, curves, counters, windowed/fading/holdout sections) is compared, and each
    final metric as the tables print it. Timings, memory, versions, git commit and machine
    are not compared. Then every table cell (mean ± SD over seeds) is compared as printed.
    Exit code 0 when the rerun reproduces the folder (no printed value differs, or with
    --exact no bit), 1 when it does not, 2 for an unusable folder.
    """
    from streamlearn.evaluation.records import NO_JIT
    from streamlearn.reporting.record_diff import diff_folders

    res = diff_folders(committed, rerun)
    counts = ", ".join(f"{res.count(v)} {v}" for v in
                       ("same", "rounding", "other fields", "differs", "status", "different run")
                       if res.count(v))
    _say(f"{committed} vs {rerun}: {len(res.runs)} run(s) in both"
         + (f" ({counts})" if counts else ""))
    rounding = [r for r in res.runs if r.verdict == "rounding"]
    if rounding:
        worst = max(rounding, key=lambda r: r.max_rel)
        _say(f"  rounding: {len(rounding)} run(s) differ below the printed digits, at most "
             f"{worst.max_rel:.1e} relative ({worst.run_id})")
    for r in res.runs:
        if r.verdict in ("differs", "status", "different run"):
            what = ("; ".join(r.differences[:5]) if r.differences
                    else "differs in " + ", ".join(r.fields))
            _say(f"  {r.verdict}: {r.run_id}: {what}")
        elif r.verdict == "other fields":
            _say(f"  other fields: {r.run_id}: " + "; ".join(r.differences[:3])
                 + " (texts only; the numbers agree)")
    for label, ids in (("only in " + str(committed), res.only_a),
                       ("only in " + str(rerun), res.only_b)):
        if ids:
            _say(f"  {len(ids)} run(s) {label}: " + ", ".join(ids[:5])
                 + (", …" if len(ids) > 5 else ""))
    for p in res.problems:
        _say(f"  unusable record: {p}")
    if res.predictions_compared or res.predictions_one_side:
        _say(f"  saved predictions: compared for {res.predictions_compared} run(s)"
             + (f"; {res.predictions_one_side} run(s) saved them in one folder only (not "
                "compared)" if res.predictions_one_side else ""))
    _say(f"  table cells: {res.cells_compared} compared, {len(res.cells)} printed differently"
         + (f", {res.cells_skipped} not compared (different numbers of runs)"
            if res.cells_skipped else ""))
    for c in res.cells[:20]:
        _say(f"    {c.stream} / {c.algorithm} / {c.metric}: {c.a} → {c.b}")
    ok = res.reproduced(exact=exact, subset=subset)
    if not ok and res.kernels_a != res.kernels_b:
        _say("  the two folders' records were made under other BLAS kernels ("
             + ("; ".join(res.kernels_a) or "not recorded") + " against "
             + ("; ".join(res.kernels_b) or "not recorded") + "): a run whose numbers depend "
             "on rounding follows the kernel; to rerun under the first folder's, set "
             "OPENBLAS_CORETYPE (README, \"Seeds and reproducibility\")")
    if not ok and res.jit_a and res.jit_b and res.jit_a != res.jit_b:
        uncompiled = NO_JIT in (*res.jit_a, *res.jit_b)
        _say("  Numba compiled the kernels for other targets"
             + (" (or not at all: NUMBA_DISABLE_JIT ran them as Python)" if uncompiled else "")
             + " (" + "; ".join(res.jit_a) + " against " + "; ".join(res.jit_b) + "): their "
             "vectorised sums may add in another order (NUMBA_CPU_NAME, NUMBA_CPU_FEATURES"
             + (", NUMBA_DISABLE_JIT" if uncompiled else "") + ")")
    _say(("reproduced" if ok else "NOT reproduced")
         + (" (same bits)" if exact and ok else "")
         + ("" if subset or ok or not (res.only_a or res.only_b)
            else " (give --subset to compare only the runs both hold)"))
    if not ok:
        raise typer.Exit(1)
