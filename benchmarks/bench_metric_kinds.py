"""The cost of windowed and faded metrics: scoring a run's predictions with every count
metric cumulatively only, vs cumulatively plus over a window and with a fading factor.

Usage: python benchmarks/bench_metric_kinds.py [--n 1000000] [--classes 2 10]
       [--checkpoints 200] [--window 500] [--alpha 0.999] [--repeat 3] [--json PATH]

The predictions are synthetic (80 % correct, bursty labels); scoring depends only on
``n``, the class count and the checkpoints, not on the learner. The overhead is also given
relative to the run of a 10 µs/sample learner on the same ``n`` (issue 23's yardstick:
windowed metrics should cost at most 5 % of such a run).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from streamlearn.base import MetricContext, RunContext
from streamlearn.protocols.scoring import checkpoint_positions, kind_blocks, score_curves

METRICS = ("oca", "oce", "mistake_rate", "bacc", "f1", "mcc", "kappa", "kappa_m",
           "kappa_t")
LEARNER_SECONDS_PER_SAMPLE = 10e-6


def predictions(n: int, c: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    fresh = rng.integers(0, c, n)
    stay = rng.random(n) < 0.7  # runs of one label (temporal dependence)
    y = fresh[np.maximum.accumulate(np.where(stay, 0, np.arange(n)))]
    p = np.where(rng.random(n) < 0.8, y, rng.integers(0, c, n))
    return y, p


def best_of(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def bench(n: int, c: int, checkpoints: int, window: int, alpha: float,
          repeat: int) -> dict:
    y, p = predictions(n, c)
    at = checkpoint_positions(n, checkpoints)
    context = MetricContext(n_classes=c)
    ctx = RunContext(metrics=METRICS, window=window, fading=alpha)
    t_cum = best_of(lambda: score_curves(METRICS, y, p, at, context), repeat)
    t_kinds = best_of(lambda: kind_blocks(ctx, y, p, at, context), repeat)
    run = n * LEARNER_SECONDS_PER_SAMPLE
    return {"n": n, "classes": c, "checkpoints": int(at.size), "window": window,
            "alpha": alpha, "cumulative_s": t_cum, "windowed_and_fading_s": t_kinds,
            "extra_vs_cumulative": t_kinds / t_cum,
            "extra_vs_10us_run_percent": 100.0 * t_kinds / run}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--classes", type=int, nargs="+", default=[2, 10])
    ap.add_argument("--checkpoints", type=int, default=200)
    ap.add_argument("--window", type=int, default=500)
    ap.add_argument("--alpha", type=float, default=0.999)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    rows = [bench(args.n, c, args.checkpoints, args.window, args.alpha, args.repeat)
            for c in args.classes]
    print(f"{'n':>9} {'c':>3} {'cumulative (s)':>15} {'window+fading (s)':>18} "
          f"{'x cumulative':>13} {'% of 10us run':>14}")
    for r in rows:
        print(f"{r['n']:>9,} {r['classes']:>3} {r['cumulative_s']:>15.3f} "
              f"{r['windowed_and_fading_s']:>18.3f} {r['extra_vs_cumulative']:>13.2f} "
              f"{r['extra_vs_10us_run_percent']:>14.2f}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
