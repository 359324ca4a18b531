# ruff: noqa: E402  (BLAS thread variables must be set before numpy is imported)
"""Gaussian-width selection for the FORKS Table 1 configs (spec Sec. 6.1 rule).

For every algorithm of a ``configs/forks/table1_<dataset>.yaml`` config, run it for each
sigma of the paper's grid ``2^[-5:0.5:7]`` (or a subset) on the first ``--perms``
permutations of the config (the same shuffles as ``streamlearn run``: the protocol's own
data preparation), and pick the sigma with the lowest mean mistake rate. Writes
``results/forks/sigma/<config name>.csv`` and, with ``--write``, puts the chosen sigma
into the config (the ``sigma:`` of each algorithm's ``params``).

A run that exceeds ``--max-seconds`` is stopped and its sigma marked ``timeout``
(PROS-N-KONS at small sigma grows its dictionary to the whole stream: O(n^3) per
change).

    python scripts/forks_sigma.py configs/forks/table1_german.yaml --perms 5 --write
"""

from __future__ import annotations

import argparse
import csv
import os
import re
import sys
import time
from pathlib import Path

# one BLAS thread, as `streamlearn run` pins it: threaded BLAS on small matrices slows a
# shared machine down by an order of magnitude (and would bias the timeouts)
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np

from streamlearn import components
from streamlearn.config import load_config
from streamlearn.evaluation.runs import build_learner
from streamlearn.protocols.preparation import prepare_stream

GRID = [e / 2 for e in range(-10, 15)]  # log2 sigma


def run_one(acfg, sigma: float, data, seed: int, max_seconds: float) -> float | None:
    acfg = type(acfg)(**{**acfg.__dict__, "params": {**acfg.params, "sigma": sigma}})
    learner = build_learner(acfg, seed)
    learner.reset(data.X.shape[1], data.n_classes)
    t = time.perf_counter()
    preds = []
    for s in range(0, data.X.shape[0], 25):
        preds.append(learner.predict_learn_many(data.X[s:s + 25], data.y[s:s + 25]))
        if time.perf_counter() - t > max_seconds:
            return None
    return float(np.mean(np.concatenate(preds) != data.y))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("config")
    ap.add_argument("--perms", type=int, default=5)
    ap.add_argument("--grid", default="full",
                    help="'full' (25 values), 'integer' (13) or 'LO:HI' (the full grid's "
                         "values with LO <= log2 sigma <= HI)")
    ap.add_argument("--only", default="", help="comma-separated algorithm labels")
    ap.add_argument("--max-seconds", type=float, default=60.0)
    ap.add_argument("--data-dir", default=None)
    ap.add_argument("--write", action="store_true")
    args = ap.parse_args(argv)
    components.load_all()
    cfg = load_config(args.config)
    if args.grid == "full":
        grid = GRID
    elif args.grid == "integer":
        grid = [g for g in GRID if g == int(g)]
    else:
        lo, hi = (float(v) for v in args.grid.split(":"))
        grid = [g for g in GRID if lo <= g <= hi]
    scfg = cfg.streams[0]
    datas = [prepare_stream(scfg, seed, args.data_dir) for seed in cfg.seeds[: args.perms]]
    out = Path("results/forks/sigma")
    out.mkdir(parents=True, exist_ok=True)
    rows, chosen = [], {}
    only = set(args.only.split(",")) if args.only else None
    for acfg in cfg.algorithms:
        if only and acfg.label not in only:
            continue
        best = (np.inf, None)
        for lg in grid:
            errs = []
            failed = ""
            for data, seed in zip(datas, cfg.seeds, strict=False):
                try:
                    e = run_one(acfg, 2.0 ** lg, data, seed, args.max_seconds)
                except np.linalg.LinAlgError:  # e.g. PROS-N-KONS's eigh not converging
                    failed = "linalg_error"
                    break
                if e is None:
                    failed = "timeout"
                    break
                errs.append(100 * e)
            if failed:
                rows.append([acfg.label, lg, failed, "", 0])
                print(f"{acfg.label:12s} log2 sigma {lg:5.1f}: {failed}", flush=True)
                continue
            m, sd = float(np.mean(errs)), float(np.std(errs, ddof=1)) if len(errs) > 1 else 0.0
            rows.append([acfg.label, lg, f"{m:.3f}", f"{sd:.3f}", len(errs)])
            print(f"{acfg.label:12s} log2 sigma {lg:5.1f}: {m:6.2f} ± {sd:.2f}", flush=True)
            if m < best[0]:
                best = (m, lg)
        chosen[acfg.label] = best
        print(f"== {acfg.label}: log2 sigma = {best[1]} ({best[0]:.2f} %)", flush=True)
        save(out / f"{cfg.name}.csv", rows, args, chosen)
    return 0


def save(path: Path, rows: list, args: argparse.Namespace, chosen: dict) -> None:
    """Write the table so far (rows of earlier --only runs are kept) and the chosen sigmas."""
    old = []
    if path.exists() and args.only:
        with open(path, newline="") as fh:
            # rows of other algorithms, and of sigmas outside this run's grid, are kept
            done = {(x[0], float(x[1])) for x in rows}
            old = [r for r in list(csv.reader(fh))[1:] if (r[0], float(r[1])) not in done]
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["algorithm", "log2_sigma", "mistake_rate_mean", "mistake_rate_sd", "perms"])
        w.writerows(old + rows)
    if args.write:
        text = Path(args.config).read_text()
        for label, (_, lg) in chosen.items():
            if lg is None:
                continue
            pat = re.compile(r'(label: "?' + re.escape(label) + r'"?\n    params: \{sigma: )[^,}]+')
            text, n = pat.subn(lambda mt, lg=lg: mt.group(1) + f"{2.0 ** lg:.10g}", text)
            if n != 1:
                print(f"could not write sigma of {label}", file=sys.stderr)
        Path(args.config).write_text(text)


if __name__ == "__main__":
    sys.exit(main())
