"""Check that the table builders of this checkout write what the old ones wrote.

The committed tables of results/ are built from run records (committed, where they are, as
runs.tar.xz: ``make verify-results`` rebuilds those tables from them). This script makes the
records afresh, runs the OLD builders (a checkout of ``--base``, by default commit
b47c2c8, the layout before issue 22) and the NEW ones (``streamlearn tables ...`` of this
checkout) on copies of the same records, and compares every file they write: text byte for
byte, PNG images pixel for pixel when their bytes differ (matplotlib metadata). It also
compares ``streamlearn report`` old vs new, and, for the outputs that hold no time
measurement, the new output against the committed file.

    python scripts/check_tables_regenerate.py --work /tmp/tables-check            # smoke
    python scripts/check_tables_regenerate.py --work /tmp/tables-check --full     # + full
    python scripts/check_tables_regenerate.py --work W --full --records-full DIR  # reuse

Smoke records (every config the builders read, run with ``--smoke``; ~40 min on a shared
2-core machine) exercise every output; ``--full`` adds the FULL configs (about 1 h more),
whose records rebuild the committed tables: those without times must come back unchanged,
the others unchanged but for their time columns. Records are made with the old code's CLI
(the record format is the same). Exit code 1 when an old and a new output differ; a
committed table that differs from its rerun is listed, not an error, because some cells
depend on the machine: the explicit-inverse ridge-BLS algorithms (Orig., R-Inv) at tiny λ
follow the OpenBLAS kernel (the committed mnist_tables/tables.md was made under SkylakeX:
set OPENBLAS_CORETYPE=SkylakeX on an AVX-512 CPU to get it back), and fast-ONS's
max |e_F - e_R| (round-off, 1e-16..1e-11) the machine that made the records.
"""

from __future__ import annotations

import argparse
import filecmp
import os
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

NEW = Path(__file__).resolve().parents[1]
PAPERS = ("forks", "fast_ons", "ridge_bls")
DATA = NEW.parent / "shared" / "datasets"  # as the Makefile: $STREAMLEARN_DATA, else this
#: configs whose records the builders read (KuaiRec, mnist_full, norb: no data or too big)
SMOKE = ([f"forks/{p.stem}" for p in sorted((NEW / "configs" / "forks").glob("*.yaml"))
          if "kuairec" not in p.stem]
         + [f"fast_ons/{p.stem}" for p in sorted((NEW / "configs" / "fast_ons").glob("*.yaml"))]
         + ["ridge_bls/mnist_tables", "ridge_bls/mnist_na"])
#: the full configs: every one whose records a committed table is built from, but Fig. 1 of
#: fast-ONS (nothing but times)
FULL = [c for c in SMOKE if not c.startswith("fast_ons/") and c not in
        ("forks/german_online_reference", "forks/pnk_ridge_adversarial")] + [
    "fast_ons/fig2a", "fast_ons/fig2b"]
#: committed outputs that hold no time: a full rerun must give them back unchanged
TIMELESS = ["forks/pnk_ridge.md", "forks/sensitivity.md", "fast_ons/fig2_stability.md",
            "fast_ons/fig2a_mse.png", "fast_ons/fig2b_mse.png", "ridge_bls/mnist_na/tables.md",
            "ridge_bls/calibration.md"]
#: committed outputs that hold times: compared with their time columns blanked (and the
#: ridge-BLS tables up to Table VI, whose every column is a time)
TIMED = ["forks/table1.md", "forks/tables2_3.md", "forks/fig2.md", "forks/extra_checks.md",
         "ridge_bls/mnist_tables/tables.md"]
#: committed inputs of the builders (not run records)
INPUTS = ["forks/sigma", "ridge_bls/calibration.json"]
#: text the new builders write differently on purpose: the commands they quote
KNOWN_CHANGES = {
    "forks/pnk_ridge.md": [("`python scripts/forks_tables.py --only pnk_ridge.md`",
                            "`streamlearn tables forks --only pnk_ridge.md`"),
                           ("`python -m streamlearn.reporting.forks_tables --only "
                            "pnk_ridge.md`", "`streamlearn tables forks --only pnk_ridge.md`")],
    "forks/table1.md": [("(streamlearn/regret_kernel.py)",
                         "(streamlearn/metrics/kernel_regret.py)")],
    "ridge_bls/calibration.md": [("`python -m streamlearn.ridge_bls_report calibrate ",
                                  "`python scripts/ridge_bls_calibrate.py "),
                                 ("`python -m streamlearn.reporting.ridge_bls calibrate ",
                                  "`python scripts/ridge_bls_calibrate.py ")],
}


def sh(cmd: list[str], *, code: Path, cwd: Path, log: Path | None = None) -> int:
    """Run ``cmd`` with ``code`` first on the import path; output to ``log`` or ours."""
    env = {**os.environ, "PYTHONPATH": str(code), "MPLBACKEND": "Agg",
           "STREAMLEARN_DATA": os.environ.get("STREAMLEARN_DATA", str(DATA))}
    out = open(log, "a") if log else None
    try:
        return subprocess.run(cmd, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT,
                              check=False).returncode
    finally:
        if out:
            out.close()


#: the CLI of the old code (``python -m streamlearn`` came with the cli/ package)
OLD_CLI = [sys.executable, "-c", "import sys; sys.argv[0] = 'streamlearn'; "
           "from streamlearn.cli import main; main()"]


def make_records(base: Path, configs: list[str], records: Path, smoke: bool,
                 jobs: int) -> None:
    """Run ``configs`` with the old CLI into ``records``, laid out as results/."""
    records.mkdir(parents=True, exist_ok=True)
    for c in configs:
        out_dir = yaml.safe_load((base / "configs" / f"{c}.yaml").read_text())
        rel = Path(out_dir["outputs"]["dir"]).relative_to("results")
        extra = ["--smoke"] if smoke else []
        rc = sh([*OLD_CLI, "run", f"configs/{c}.yaml", "--out", str(records / rel),
                 "--quiet", "--jobs", str(jobs), *extra], code=base, cwd=base,
                log=records / "run.log")
        print(f"  run {c}{' --smoke' if smoke else ''}: exit {rc}", flush=True)


def lay_out(records: Path, dest: Path) -> Path:
    """A copy of ``records`` as ``dest/results/<paper>`` with the committed inputs."""
    results = dest / "results"
    shutil.rmtree(dest, ignore_errors=True)
    for paper in PAPERS:
        if (records / paper).is_dir():
            shutil.copytree(records / paper, results / paper)
        (results / paper).mkdir(parents=True, exist_ok=True)
    for rel in INPUTS:
        src = NEW / "results" / rel
        (shutil.copytree if src.is_dir() else shutil.copy)(src, results / rel)
    return results


def build_old(base: Path, results: Path, log: Path) -> None:
    py = sys.executable
    sh([py, str(base / "scripts" / "forks_tables.py")], code=base, cwd=results.parent, log=log)
    sh([py, str(base / "scripts" / "fast_ons_figures.py"), "--results",
        str(results / "fast_ons")], code=base, cwd=results.parent, log=log)
    sh([py, "-m", "streamlearn.ridge_bls_report", "calibrate", "--repick", "--out",
        str(results / "ridge_bls")], code=base, cwd=results.parent, log=log)
    for exp in sorted((results / "ridge_bls").glob("*/runs")):
        sh([py, "-m", "streamlearn.ridge_bls_report", "tables", str(exp.parent)], code=base,
           cwd=results.parent, log=log)


def build_new(results: Path, log: Path) -> None:
    for paper in PAPERS:  # the default RESULTS_DIR: results/<paper> of the working directory
        sh([sys.executable, "-m", "streamlearn", "tables", paper], code=NEW,
           cwd=results.parent, log=log)


def files(results: Path) -> set[str]:
    return {str(p.relative_to(results)) for p in results.rglob("*")
            if p.is_file() and "runs" not in p.parts and p.suffix in (".md", ".png", ".json")}


def same_png(a: Path, b: Path) -> bool:
    import matplotlib.image
    import numpy as np

    x, y = matplotlib.image.imread(a), matplotlib.image.imread(b)
    return x.shape == y.shape and bool(np.array_equal(x, y))


def without_times(text: str) -> str:
    """``text`` with the cells of every markdown column headed "time (s)" blanked, cut
    before "## Table VI"."""
    lines, timed = [], set()
    for line in text.split("## Table VI")[0].split("\n"):
        cells = line.split("|")
        if not line.startswith("|"):
            timed = set()
        elif not timed and any(c.strip() == "time (s)" for c in cells):
            timed = {i for i, c in enumerate(cells) if c.strip() == "time (s)"}
        lines.append("|".join("…" if i in timed else c for i, c in enumerate(cells)))
    return "\n".join(lines)


def same(rel: str, old: Path, new: Path, changes: bool = True,
         times: bool = True) -> str | None:
    """None when ``old`` and ``new`` hold the same output, else why not (``times=False``:
    time columns left out)."""
    if filecmp.cmp(old, new, shallow=False):
        return None
    if old.suffix == ".png":
        return None if same_png(old, new) else "pixels differ"
    a, b = old.read_text(), new.read_text()
    if not times:
        a, b = without_times(a), without_times(b)
    for before, after in KNOWN_CHANGES.get(rel, []) if changes else []:
        a = a.replace(before, after)
    if a == b:
        return None
    diff = [f"    - {x}\n    + {y}" for x, y in zip(a.split("\n"), b.split("\n"),
                                                     strict=False) if x != y]
    return f"{len(diff)} line(s) differ\n" + "\n".join(diff[:6])


def verdict(old: Path, new: Path, why: str | None) -> str:
    if why is not None:
        return "DIFFERS: " + why
    if filecmp.cmp(old, new, shallow=False):
        return "identical"
    return ("identical pixels (the PNG bytes differ)" if old.suffix == ".png"
            else "identical after the known command change")


def compare_builders(records: Path, work: Path, base: Path) -> int:
    """Old and new builders on two copies of ``records``; every file either wrote compared."""
    trees = {side: lay_out(records, work / side) for side in ("old", "new")}
    before = files(trees["new"])
    build_old(base, trees["old"], work / "old.log")
    build_new(trees["new"], work / "new.log")
    old_out, new_out = files(trees["old"]) - before, files(trees["new"]) - before
    bad = 0
    for rel in sorted(before):  # inputs: the old --repick rewrites calibration.json
        if not filecmp.cmp(trees["old"] / rel, trees["new"] / rel, shallow=False):
            print(f"  {rel}: input rewritten by the old builders: DIFFERS")
            bad += 1
    for rel in sorted(old_out | new_out):
        if rel not in new_out:
            print(f"  {rel}: written by the old builder only (the new one had no records)")
            continue
        if rel not in old_out:
            print(f"  {rel}: written by the new builder only")
            bad += 1
            continue
        why = same(rel, trees["old"] / rel, trees["new"] / rel)
        print(f"  {rel}: {verdict(trees['old'] / rel, trees['new'] / rel, why)}")
        bad += why is not None
    return bad


def compare_committed(work: Path) -> int:
    bad = 0
    for rel in TIMELESS + TIMED:
        new = work / "new" / "results" / rel
        if not new.exists():
            print(f"  {rel}: not regenerated (records missing)")
            continue
        old = NEW / "results" / rel
        why = same(rel, old, new, times=rel not in TIMED)
        text = (verdict(old, new, why) if rel not in TIMED or why is not None
                or filecmp.cmp(old, new, shallow=False) else "identical but for the times")
        print(f"  {rel}: {text} (committed vs new)")
        bad += why is not None
    return bad


def compare_report(base: Path, dirs: list[Path], work: Path) -> int:
    bad = 0
    for d in dirs:
        outs = {}
        for side, code, cli in (("old", base, OLD_CLI),
                                ("new", NEW, [sys.executable, "-m", "streamlearn"])):
            dest = work / "report" / side / d.name
            shutil.rmtree(dest, ignore_errors=True)
            shutil.copytree(d, dest, ignore=shutil.ignore_patterns("*.md", "*.csv", "*.png",
                                                                   "*.html"))
            sh([*cli, "report", str(dest)], code=code, cwd=work, log=work / f"report_{side}.log")
            outs[side] = dest
        names = sorted({p.name for s in outs.values() for p in s.iterdir() if p.is_file()}
                       - {"experiment.json"})
        for name in names:
            a, b = outs["old"] / name, outs["new"] / name
            why = "missing on one side" if not (a.exists() and b.exists()) else \
                same(name, a, b, changes=False)
            print(f"  {d.name}/{name}: "
                  f"{'DIFFERS: ' + why if why else verdict(a, b, None)}")
            bad += why is not None
    return bad


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--work", type=Path, required=True, help="scratch folder")
    ap.add_argument("--base", type=Path, default=None,
                    help="a checkout of the old code (default: git archive of --base-commit)")
    ap.add_argument("--base-commit", default="b47c2c8")
    ap.add_argument("--full", action="store_true", help="also the FULL configs (~1 h)")
    ap.add_argument("--records-smoke", type=Path, default=None, help="reuse these records")
    ap.add_argument("--records-full", type=Path, default=None, help="reuse these records")
    ap.add_argument("--report-dirs", type=Path, nargs="*", default=[],
                    help="output folders of `streamlearn run` to compare `report` on")
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    work = args.work.resolve()
    work.mkdir(parents=True, exist_ok=True)
    base = args.base
    if base is None:
        base = work / "base"
        if not base.exists():
            base.mkdir()
            archive = subprocess.run(["git", "-C", str(NEW), "archive", args.base_commit],
                                     capture_output=True, check=True).stdout
            subprocess.run(["tar", "-x", "-C", str(base)], input=archive, check=True)
    base = base.resolve()
    bad = committed = 0
    sets = [("smoke", args.records_smoke, SMOKE, True)]
    if args.full:
        sets.append(("full", args.records_full, FULL, False))
    for name, records, configs, smoke in sets:
        print(f"== {name} records", flush=True)
        if records is None:
            records = work / f"records-{name}"
            make_records(base, configs, records, smoke, args.jobs)
        print(f"== {name}: old builders vs new, on the same records")
        bad += compare_builders(records.resolve(), work / name, base)
        if name == "full":
            print("== full: new outputs without times vs the committed ones")
            committed += compare_committed(work / name)
    if args.report_dirs:
        print("== streamlearn report, old vs new")
        bad += compare_report(base, [d.resolve() for d in args.report_dirs], work)
    print("old and new builders: " + ("all identical" if not bad else
                                      f"{bad} output(s) DIFFER"))
    if args.full:
        print("committed tables without times: " + (
            "all regenerated unchanged" if not committed else
            f"{committed} differ from their rerun here (listed above)"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
