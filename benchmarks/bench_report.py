"""Time of ``streamlearn report`` on a large experiment with the other evaluation kinds.

Not a test: writes by hand the records of 5 learners × 10 folds of a prequential
cross-validation (one seed) × 200 checkpoints × 4 metrics, with windowed, faded and held-out
blocks (the run-record contract of issue 23), and the same records without those blocks;
then times, on each, the summary (reading and checking the records), the whole report
(tables, curves.csv, learning curves) and the HTML page, best of ``--repeat``.

Usage::

    python benchmarks/bench_report.py [--learners 5] [--folds 10] [--checkpoints 200]
        [--repeat 3] [--work DIR]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from streamlearn.evaluation import records
from streamlearn.reporting.curves import write_curves_csv
from streamlearn.reporting.html import write_html
from streamlearn.reporting.report import build_report
from streamlearn.reporting.summary import summarize

METRICS = ["oca", "bacc", "f1", "mcc"]


def write_experiment(out: Path, learners: int, folds: int, checkpoints: int,
                     blocks: bool) -> int:
    """The experiment directory; returns the number of records."""
    rng = np.random.default_rng(0)
    t = np.linspace(45312 / checkpoints, 45312, checkpoints).round().astype(int).tolist()
    held_t = list(range(0, 45312, 1000))
    algos = [f"learner{i}" for i in range(learners)]
    runs = []
    for a in algos:
        for f in range(folds):
            rid = f"Electricity__{a}__seed0_fold{f}"
            curves = {"t": t, **{m: rng.uniform(0.5, 1, checkpoints).tolist()
                                 for m in METRICS}}
            rec = {"schema_version": records.SCHEMA_VERSION, "complete": True,
                   "digest": rid, "run_id": rid, "stream": "Electricity", "algorithm": a,
                   "seed": 0, "status": "ok", "metrics": {m: curves[m][-1] for m in METRICS},
                   "curves": curves, "timing": {"per_sample_seconds": 1e-5,
                                                "per_sample_learn_seconds": None},
                   "fold": {"method": "cross", "index": f, "folds": folds}}
            if blocks:
                for kind, param in (("windowed", {"window": 500}),
                                    ("fading", {"alpha": 0.999})):
                    c = {m: rng.uniform(0.5, 1, checkpoints).tolist() for m in METRICS}
                    rec[kind] = {**param, "metrics": {m: c[m][-1] for m in METRICS},
                                 "curves": c, "not_supported": []}
                h = {m: rng.uniform(0.5, 1, len(held_t)).tolist() for m in METRICS}
                rec["holdout"] = {"every": 1000, "size": 200,
                                  "metrics": {m: float(np.mean(h[m])) for m in METRICS},
                                  "curves": {"t": held_t, **h}}
            records.atomic_write_json(records.record_path(out, rid), rec)
            runs.append({"run_id": rid, "digest": rid, "stream": "Electricity",
                         "algorithm": a, "seed": 0})
    cfg = {"name": "bench", "protocol": "prequential-classification", "seeds": [0],
           "streams": [{"label": "Electricity", "max_samples": None}],
           "algorithms": [{"label": a} for a in algos], "metrics": METRICS,
           "outputs": {"tables": ["markdown", "csv"], "plots": ["learning_curve"],
                       "curve_metric": "oca"},
           "reference": {"source": "", "values": {}, "cited": [], "notes": ""}}
    records.atomic_write_json(out / "experiment.json", {
        "schema_version": 1, "name": "bench", "smoke": False, "not_run": {}, "config": cfg,
        "runs": runs})
    return len(runs)


def best(func, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        func()
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--learners", type=int, default=5)
    ap.add_argument("--folds", type=int, default=10)
    ap.add_argument("--checkpoints", type=int, default=200)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--work", type=Path, default=None)
    args = ap.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="bench_report_"))
    print(f"load average {os.getloadavg()[0]:.2f}; {args.learners} learners × "
          f"{args.folds} folds × {args.checkpoints} checkpoints × {len(METRICS)} metrics")
    for blocks in (False, True):
        out = work / ("kinds" if blocks else "plain")
        shutil.rmtree(out, ignore_errors=True)
        n = write_experiment(out, args.learners, args.folds, args.checkpoints, blocks)
        build_report(out)  # warm: imports, matplotlib, fonts
        t_sum = best(lambda out=out: summarize(out), args.repeat)
        t_rep = best(lambda out=out: build_report(out), args.repeat)
        summary, written = build_report(out)
        t_csv = best(lambda s=summary, out=out: write_curves_csv(s, out), args.repeat)
        t_html = best(lambda s=summary, w=written, out=out: write_html(s, out, w),
                      args.repeat)
        rows = sum(1 for _ in open(out / "curves.csv")) - 1
        pngs = sum(1 for p in written if p.suffix == ".png")
        print(f"{'with' if blocks else 'without'} windowed/fading/holdout blocks: "
              f"{n} records, curves.csv {rows:,} rows "
              f"({(out / 'curves.csv').stat().st_size / 1e6:.1f} MB), {pngs} PNG; "
              f"summary {t_sum:.2f} s, report (tables + curves.csv + plots) {t_rep:.2f} s "
              f"(curves.csv alone {t_csv:.2f} s), HTML {t_html:.2f} s")


if __name__ == "__main__":
    main()
