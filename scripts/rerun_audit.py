"""Rerun committed results folders on this machine and compare them with their committed
records (``streamlearn records diff``): do our numbers survive an independent rerun on
another CPU?

For each committed folder (one with ``runs.tar.xz``) whose records took at most
``--max-seconds`` of run time in all (the sum of their ``timing.total_seconds``), runs the
config its ``experiment.json`` names into ``--work/<folder>`` (a rerun that was
interrupted resumes there) (``streamlearn run CONFIG
--out DIR --jobs J``, this checkout's code) and compares the two folders' records with
:func:`streamlearn.reporting.record_diff.diff_folders`. Writes one Markdown table: per
folder the runs with the same bits, with differences below the printed digits (the
largest relative one), with a value printed differently, and the table cells printed
differently; then each difference, and this machine (CPU, vector extension, Numba's
target, BLAS kernel). A folder that is not reproduced is rerun once more under the
OpenBLAS kernel its committed records name (``OPENBLAS_CORETYPE``; Haswell for records
that name none), so that the table says whether the difference is the BLAS kernel's.
Exit 1 when a folder is not reproduced.

    python scripts/rerun_audit.py --max-seconds 130 --work /tmp/audit \\
        [--out results/rerun_audit/<machine>.md] [--jobs 1] [FOLDER ...]

``make rerun-check`` (CI) runs it on a few quick folders of each paper.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

from streamlearn.evaluation import record_archive
from streamlearn.reporting.machine import describe_machine
from streamlearn.reporting.record_diff import VERDICTS, RecordsDiff, diff_folders

ROOT = Path(__file__).resolve().parents[1]
#: ``streamlearn run``'s exit code for a data error (errors.DataError): the data files
#: absent when its message says so
DATA_MISSING = 3


class DataAbsent(Exception):
    """The folder's data is not on this machine: not rerun, not a difference."""


def committed_folders(results: Path, max_seconds: float) -> list[tuple[Path, float]]:
    """Folders with a records archive and a config that exists, whose records' run time
    sums to at most ``max_seconds``, cheapest first."""
    out = []
    for arc in sorted(results.rglob(record_archive.ARCHIVE_NAME)):
        d = arc.parent
        if "smoke" in d.parts:
            continue
        manifest = json.loads((d / "experiment.json").read_text())
        if not (ROOT / str(manifest.get("config_path", ""))).is_file():
            continue
        secs = sum(float((r.get("timing") or {}).get("total_seconds") or 0.0)
                   for r in record_archive.store(d).records())
        if secs <= max_seconds:
            out.append((d, secs))
    return sorted(out, key=lambda t: t[1])


def work_folder(folder: Path, work: Path, env: dict[str, str] | None = None) -> Path:
    """Where the rerun of ``folder`` (under ``env``) is written."""
    out = work / folder.relative_to(ROOT / "results")
    if env:
        out = out.with_name(out.name + "@" + ",".join(f"{k}={v}" for k, v in env.items()))
    return out


def rerun(folder: Path, work: Path, jobs: int,
          env: dict[str, str] | None = None) -> tuple[Path, float]:
    manifest = json.loads((folder / "experiment.json").read_text())
    out = work_folder(folder, work, env)
    t = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "streamlearn", "run", manifest["config_path"], "--out",
         str(out), "--jobs", str(jobs), "-q"],
        cwd=ROOT, env={**os.environ, **(env or {}), "PYTHONPATH": str(ROOT)}, capture_output=True,
        text=True)
    if proc.returncode == DATA_MISSING and "not in the data directory" in " ".join(
            proc.stdout.split() + proc.stderr.split()):
        raise DataAbsent(" ".join((proc.stdout + proc.stderr).split())[:300])
    if proc.returncode != 0:
        raise RuntimeError(f"{folder}: streamlearn run exited {proc.returncode}:\n"
                           + proc.stdout[-2000:] + proc.stderr[-2000:])
    return out, time.perf_counter() - t


#: a rerun that does not reproduce is repeated under the OpenBLAS kernel its committed
#: records name (``machine.blas``, since 27 Nov); records that name none, or more than one,
#: were made under this one (AVX2, the AMD machine of the early records). When that rerun
#: reproduces, the records follow the BLAS kernel (README, "Seeds and reproducibility")
DEFAULT_KERNEL = "Haswell"


def records_kernel(folder: Path) -> str:
    """The OpenBLAS kernel the committed records of ``folder`` name, or
    :data:`DEFAULT_KERNEL` when they name none or several."""
    kernels = set()
    for record in record_archive.store(folder).records():
        for lib in (record.get("machine") or {}).get("blas") or []:
            if lib.get("library") == "openblas" and lib.get("kernel"):
                kernels.add(str(lib["kernel"]))
    return kernels.pop() if len(kernels) == 1 else DEFAULT_KERNEL


def attribution_env(folder: Path) -> dict[str, str]:
    """The environment of the rerun that attributes a difference to the BLAS kernel."""
    return {"OPENBLAS_CORETYPE": records_kernel(folder)}


#: the verdicts of the "other" column (texts only: reproduced; status, another run: not)
OTHER = ("other fields", "status", "different run")


def _row(folder: Path, res: RecordsDiff, secs: float, attributed: str) -> str:
    """One table row; every paired run is in exactly one of the columns same bits,
    rounding, printed differently and other (a run with texts only, another status or
    another identity had been in none)."""
    rounding = [r.max_rel for r in res.runs if r.verdict == "rounding"]
    worst = f" (≤ {max(rounding):.1e})" if rounding else ""
    ok = "yes" if res.reproduced() else "**no**"
    other = ", ".join(f"{res.count(v)} {v}" for v in OTHER if res.count(v)) or "0"
    return (f"| {folder.relative_to(ROOT)} | {len(res.runs)} | {res.count('same')} | "
            f"{res.count('rounding')}{worst} | {res.count('differs')} | {other} | "
            f"{len(res.only_a) + len(res.only_b)} | {res.cells_compared} | {len(res.cells)} | "
            f"{secs:.0f} | {ok} | {attributed} |")


def check_folders(folders: list[Path]) -> str | None:
    """Why a folder named on the command line cannot be audited (None when all can): it
    must be a committed results folder of this checkout, with its experiment.json."""
    results = (ROOT / "results").resolve()
    for f in folders:
        if not f.is_relative_to(results):
            return f"{f} is not under {results}: name a committed results folder"
        if not (f / "experiment.json").is_file():
            return f"{f} has no experiment.json: it is no results folder"
    return None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folders", nargs="*", type=Path, help="committed folders (default: all "
                    "whose records took at most --max-seconds)")
    ap.add_argument("--max-seconds", type=float, default=130.0)
    ap.add_argument("--add", nargs="*", type=Path, default=[],
                    help="more folders, after those of --max-seconds (e.g. a paper's tables)")
    ap.add_argument("--work", type=Path, required=True, help="where the reruns are written")
    ap.add_argument("--out", type=Path, help="the Markdown table to write (default: print it)")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--attribute", choices=("always", "resume"), default="always",
                    help="rerun a folder that is not reproduced under the OpenBLAS kernel its "
                    "records name (Haswell when they name none) always, or only to resume "
                    "such a rerun begun in --work (an interrupted audit finished without "
                    "starting new ones)")
    args = ap.parse_args()
    if args.folders:
        folders = [((ROOT / f).resolve(), 0.0) for f in args.folders]
        why = check_folders([f for f, _ in folders])
        if why:
            print(f"rerun_audit: {why}", file=sys.stderr)
            return 2
    else:
        folders = committed_folders(ROOT / "results", args.max_seconds)
        have = {f for f, _ in folders}
        folders += [((ROOT / f).resolve(), 0.0) for f in args.add
                    if (ROOT / f).resolve() not in have]
    rows, details, failed, machine, absent = [], [], 0, "", 0
    for folder, _ in folders:
        try:
            again, _ = rerun(folder, args.work, args.jobs)
            # the runs' own time, from their records (a resumed rerun skips complete runs)
            secs = sum(float((r.get("timing") or {}).get("total_seconds") or 0.0)
                       for r in record_archive.store(again).records())
        except DataAbsent as exc:
            rows.append(f"| {folder.relative_to(ROOT)} | not rerun: data absent "
                        "| | | | | | | | | | |")
            details.append(f"- {folder.relative_to(ROOT)}: not rerun: {exc}")
            absent += 1
            print(rows[-1], flush=True)
            continue
        except RuntimeError as exc:  # e.g. MOA's learners without Java or capymoa
            rows.append(f"| {folder.relative_to(ROOT)} | rerun failed | | | | | | | | | **no** | |")
            details.append(f"- {folder.relative_to(ROOT)}: the rerun failed: "
                           + " ".join(str(exc).split())[-300:])
            print(rows[-1], flush=True)
            failed += 1
            continue
        res = diff_folders(folder, again)
        attributed = ""
        env = attribution_env(folder) if not res.reproduced() else {}
        if not res.reproduced() and args.attribute == "resume" and not work_folder(
                folder, args.work, env).is_dir():
            attributed = "not tried (--attribute resume)"
        elif not res.reproduced():
            try:
                under, _ = rerun(folder, args.work, args.jobs, env)
                alt = diff_folders(folder, under)
                attributed = (("yes" if alt.reproduced() else "no")
                              + f" ({env['OPENBLAS_CORETYPE']}): " + ", ".join(
                    f"{alt.count(v)} {v}" for v in VERDICTS if alt.count(v)))
            except RuntimeError as exc:
                attributed = "rerun failed: " + " ".join(str(exc).split())[-100:]
        machine = machine or next((describe_machine(r["machine"]) for r in
                                   record_archive.store(again).records() if "machine" in r), "")
        rows.append(_row(folder, res, secs, attributed))
        print(rows[-1], flush=True)
        failed += not res.reproduced()
        for kind, verdicts in (("not reproduced", ("differs", "status", "different run")),
                                ("texts only (reproduced)", ("other fields",))):
            runs = [r for r in res.runs if r.verdict in verdicts]
            if runs:
                shown = "; ".join(f"{r.run_id}: {r.verdict}: "
                                  + (r.differences[0] if r.differences else ", ".join(r.fields))
                                  for r in runs[:2])
                details.append(f"- {folder.relative_to(ROOT)}: {len(runs)} run(s) {kind}, "
                               f"e.g. {shown}")
        details += [f"- {folder.relative_to(ROOT)}: cell {c.stream} / {c.algorithm} / "
                    f"{c.metric}: {c.a} → {c.b}" for c in res.cells]
    lines = [
        "# Committed results rerun on another machine",
        "",
        ("Written by `python scripts/rerun_audit.py` on "
         f"{time.strftime('%Y-%m-%d', time.gmtime())}: "
         + ("the folders named" if args.folders else
            f"every committed results folder whose records took at most {args.max_seconds:g} s "
            "of run time" + (", and " + ", ".join(str(f) for f in args.add) if args.add else ""))
         + ", rerun from its config with this checkout's code and compared with its committed "
         "records by `streamlearn records diff` (timings, versions and machine not compared)."),
        "",
        f"Machine of the reruns: {machine}; Python {platform.python_version()}.",
        "",
        "| folder | runs | same bits | rounding (largest relative) | printed differently | "
        "other (texts; status, another run) | in one folder only | cells | cells printed "
        "differently | learners' time (s, records) | reproduced | not reproduced: under the "
        "records' OpenBLAS kernel? |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
        *rows,
        "",
        f"{len(rows) - failed - absent} of {len(rows) - absent} folders rerun reproduced"
        + (f"; {absent} not rerun (data absent)." if absent else "."),
        "",
    ]
    if details:
        lines += ["Runs not reproduced, runs whose texts only differ, and cells:", "",
                  *details, ""]
    if args.out is None:
        print("\n".join(lines))
    else:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text("\n".join(lines))
        print(f"wrote {args.out}: {len(rows) - failed - absent} of {len(rows) - absent} "
              "folders rerun reproduced")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
