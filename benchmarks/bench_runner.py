"""Runner overhead: a bare predict/learn loop vs the prequential engine vs a whole run.

Usage: python benchmarks/bench_runner.py [--n 20000] [--repeat 3] [--json PATH]

For each learner the same SEA stream is processed three ways; the best of ``--repeat``
wall times is reported with samples/s and the overhead relative to the bare loop.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from streamlearn.components import get_algorithm
from streamlearn.config import parse_config
from streamlearn.evaluation.runs import execute_run, plan_runs
from streamlearn.protocols.preparation import prepare_stream
from streamlearn.protocols.prequential_loop import run_prequential


def bare_loop(learner, X, y) -> None:
    predict_one, learn_one = learner.predict_one, learner.learn_one
    for i in range(X.shape[0]):
        predict_one(X[i])
        learn_one(X[i], y[i].item())


def best_of(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def bench_one(algo: str, n_max: int, repeat: int) -> dict:
    """Time one learner three ways on the first ``n_max`` samples of SEA."""
    cfg = parse_config({
        "name": "bench", "streams": [{"name": "sea", "max_samples": n_max}],
        "algorithms": [{"name": algo}], "evaluation": {"chunk_size": 1000},
    })
    spec = plan_runs(cfg)[0]
    data = prepare_stream(spec.stream, spec.seed, None)
    X, y = data.X, data.y
    cls = get_algorithm(algo)

    def fresh():
        learner = cls()
        learner.reset(X.shape[1], 2)
        return learner

    run_prequential(fresh(), X[:10], y[:10])  # JIT warm-up
    t_bare = best_of(lambda: bare_loop(fresh(), X, y), repeat)
    t_loop = best_of(lambda: run_prequential(fresh(), X, y, use_many=False), repeat)
    t_many = (best_of(lambda: run_prequential(fresh(), X, y), repeat)
              if hasattr(cls, "predict_learn_many") else float("nan"))
    with tempfile.TemporaryDirectory() as tmp:
        t_run = best_of(lambda: execute_run(spec, Path(tmp), None), repeat)
    n = X.shape[0]
    return {
        "learner": algo, "n": n,
        "bare_loop_s": t_bare, "engine_loop_s": t_loop, "engine_fused_s": t_many,
        "full_run_s": t_run,
        "bare_samples_per_s": n / t_bare,
        "engine_overhead_us_per_sample": (t_loop - t_bare) / n * 1e6,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--n", type=int, default=20000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    rows = [bench_one(algo, args.n, args.repeat)
            for algo in ("rls", "perceptron", "hoeffding_tree")]
    hdr = (f"{'learner':16s} {'n':>6s} {'bare s':>8s} {'engine s':>9s} {'fused s':>8s} "
           f"{'run s':>7s} {'bare smp/s':>11s} {'engine µs/smp over bare':>24s}")
    print(hdr)
    for r in rows:
        print(f"{r['learner']:16s} {r['n']:6d} {r['bare_loop_s']:8.3f} {r['engine_loop_s']:9.3f} "
              f"{r['engine_fused_s']:8.3f} {r['full_run_s']:7.3f} "
              f"{r['bare_samples_per_s']:11,.0f} {r['engine_overhead_us_per_sample']:24.2f}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
