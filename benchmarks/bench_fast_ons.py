"""Per-sample time of OGD, regular ONS and fast ONS vs M, and the series protocol's
overhead (Fast-ONS paper, Sec. 4.1; targets from issue 10).

    python benchmarks/bench_fast_ons.py [--Ms 16,32,64,128,256,512,1000] [--n 1000000]
        [--overhead-n 10000000] [--repeat 3] [--before]

``--before`` also times, in the same process and interleaved with the others, the fast-ONS
kernel as it was before issue 25 item 4 (``tests/reference/fast_ons_before.py``), so that
the before/after ratios are comparable under the same load.

One BLAS thread, JIT compilation excluded (a warm-up call first), best of ``--repeat``.
Each learner runs its compiled ``predict_learn_many`` over the whole series in one call
(the learner's own time). Regular ONS runs a shorter prefix at large M (its time per
sample does not depend on n). The series is the generated speech-like stand-in, so the
benchmark needs no data files.

Targets: fast ONS <= 200 ns/sample at M = 128 and <= 1.4 us at M = 1000; within 2.5x of
OGD at every M; >= 300x faster than regular ONS at M = 1000; time linear in M; runner
overhead <= 5 % of the learner's own time on a 1e7-sample series; memory independent of
n apart from the series (a run that does not save its predictions sums its metrics while
streaming and holds no n-sized array).
"""

from __future__ import annotations

import argparse
import functools
import importlib.util
import json
import os
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from streamlearn.algorithms.series.fast_ons import FastONS
from streamlearn.algorithms.series.ogd_series import OGDSeries
from streamlearn.algorithms.series.ons import RegularONS
from streamlearn.base import PreparedData, RunContext
from streamlearn.datasets.synthetic.series import SpeechLikeSeries
from streamlearn.protocols.preparation import tile
from streamlearn.protocols.prequential_regression import PrequentialSeriesRegression


@functools.cache
def _before_kernel():
    """The fast-ONS chunk kernel of before issue 25 item 4 (kept under tests/reference)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from tests.reference.fast_ons_before import fast_ons_chunk_before

    return fast_ons_chunk_before


class _FastONSBefore(FastONS):
    """FastONS running the pre-issue-25 kernel (same predictions; for ``--before``)."""

    def _run_chunk(self, xin: np.ndarray, yin: np.ndarray, out: np.ndarray) -> None:
        fast_ons_chunk_before = _before_kernel()
        start, n = 0, xin.shape[0]
        while start < n:
            status, i = fast_ons_chunk_before(
                xin[start:], yin[start:], self.w_, self.xt_, self.L0_, self.L1_, self.rho_,
                self.lag_, self.u_, self.ssum_, self.sc_, self.M, int(self.offset),
                self.alpha, self.lr, self.eps, self.tau, out[start:])
            if status == 0:
                break
            self._recover(float(yin[start + i] - out[start + i]))
            start += i + 1
        self.steps_ += n


@functools.cache
def _floor():
    """benchmarks/fast_ons_floor.py (beside this file; not a package)."""
    spec = importlib.util.spec_from_file_location(
        "fast_ons_floor", Path(__file__).resolve().with_name("fast_ons_floor.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _learner(name: str, M: int):
    if name == "fast_ons_before":
        return _FastONSBefore(M=M, alpha=1.0, lr=0.003)
    if name == "ogd":
        return OGDSeries(M=M, lr=1e-3)
    if name == "ons":
        return RegularONS(M=M, alpha=1.0, lr=0.003)
    return FastONS(M=M, alpha=1.0, lr=0.003)


def per_sample_ns(name: str, M: int, series: np.ndarray, repeat: int) -> float:
    x, y = series[:-1, None], series[1:]
    warm = _learner(name, M)
    warm.reset(1, None)
    warm.predict_learn_many(x[:3], y[:3])
    best = np.inf
    for _ in range(repeat):
        learner = _learner(name, M)
        learner.reset(1, None)
        t0 = time.perf_counter()
        learner.predict_learn_many(x, y)
        best = min(best, time.perf_counter() - t0)
    return 1e9 * best / y.size


def _protocol_run(n: int, M: int) -> tuple[PrequentialSeriesRegression, PreparedData,
                                            RunContext]:
    """The series protocol, its prepared data (the speech-like series tiled to n + 1
    values) and a run context with MSE/MAE curves; the learner's kernels compiled."""
    base = SpeechLikeSeries(n_samples=500_001, seed=0).to_arrays()[1]
    series = tile(base, n + 1)
    proto = PrequentialSeriesRegression()
    data = PreparedData(X=series[:-1, None], y=series[1:], info={"label": "bench"},
                        n_classes=None, extra={"series": series})
    # as a run without save_predictions: the metrics are summed while streaming
    ctx = RunContext(metrics=("mse", "mae"), checkpoints=200, chunk_size=100_000,
                     keep_predictions=False)
    proto.warm_up(FastONS(M=M), data)
    return proto, data, ctx


def overhead(n: int, M: int, repeat: int) -> dict[str, float]:
    """Wall time of the protocol's whole run (chunked engine, metric curves) against the
    learner's own time, on a series of n predictions."""
    proto, data, ctx = _protocol_run(n, M)
    best_wall, best_learner = np.inf, np.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        res = proto.run(FastONS(M=M), data, ctx)
        wall = time.perf_counter() - t0
        if wall < best_wall:
            best_wall, best_learner = wall, res.timing["total_seconds"]
    direct = np.inf
    for _ in range(repeat):
        learner = FastONS(M=M)
        learner.reset(1, None)
        t0 = time.perf_counter()
        learner.predict_learn_many(data.X, data.y)
        direct = min(direct, time.perf_counter() - t0)
    return {"wall": best_wall, "learner": best_learner, "direct": direct}


def peak_bytes(n: int, M: int) -> int:
    proto, data, ctx = _protocol_run(n, M)
    tracemalloc.start()
    proto.run(FastONS(M=M), data, ctx)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return int(peak)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--Ms", default="16,32,64,128,256,512,1000")
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--overhead-n", type=int, default=10_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--before", action="store_true",
                    help="also time the fast-ONS kernel of before issue 25 item 4")
    ap.add_argument("--json", type=Path, help="write the times and checks to this JSON file")
    args = ap.parse_args()
    Ms = [int(m) for m in args.Ms.split(",")]
    series = SpeechLikeSeries(n_samples=args.n + 1, seed=0).to_arrays()[1]
    rows = []
    load_start = os.getloadavg()[0]
    print(f"load average at the start: {load_start:.2f}")
    with threadpool_limits(1):
        extra = " F-before ns | F-before/OGD |" if args.before else ""
        print(f"| M | OGD ns | F-ONS ns | R-ONS ns | F/OGD | R/F |{extra}")
        print("|---|---|---|---|---|---|" + ("---|---|" if args.before else ""))
        for M in Ms:
            n_ons = int(min(args.n, max(2000, 3e8 / (M * M))))
            t = {"ogd": per_sample_ns("ogd", M, series, args.repeat),
                 "fast_ons": per_sample_ns("fast_ons", M, series, args.repeat),
                 "ons": per_sample_ns("ons", M, series[: n_ons + 1], args.repeat)}
            if args.before:
                t["before"] = per_sample_ns("fast_ons_before", M, series, args.repeat)
            cols = (f" {t['before']:.0f} | {t['before'] / t['ogd']:.2f} |" if args.before
                    else "")
            rows.append((M, t))
            print(f"| {M} | {t['ogd']:.0f} | {t['fast_ons']:.0f} | {t['ons']:.0f} | "
                  f"{t['fast_ons'] / t['ogd']:.2f} | {t['ons'] / t['fast_ons']:.0f} |{cols}",
                  flush=True)
        by_M = dict(rows)
        # fast ONS at M = 1: each step's scalar work (a hypot, four divisions, a square
        # root and the checks, a serial chain: sqrt(eta_t) feeds the next step), which no
        # M-vectorisation shortens; it bounds F/OGD at small M
        chain = per_sample_ns("fast_ons", 1, series, args.repeat)
        print(f"\nfast ONS at M = 1 (its per-step scalar work): {chain:.0f} ns")
        # the floor: Algorithm 1's rotation and the prediction's dot alone (no weight
        # step, checks or lag products; benchmarks/fast_ons_floor.py), against OGD, at
        # M = 1 and at the worst M of the table
        worst_M = max(by_M, key=lambda M: by_M[M]["fast_ons"] / by_M[M]["ogd"])
        floor = {}
        for M in sorted({1, worst_M}):
            floor[str(M)] = {"ogd": by_M[M]["ogd"] if M in by_M else
                             per_sample_ns("ogd", M, series, args.repeat),
                             "rotation_alone": _floor().rotation_alone_ns(M, series,
                                                                          args.repeat)}
            f = floor[str(M)]
            print(f"M = {M}: the rotation alone {f['rotation_alone']:.1f} ns = "
                  f"{f['rotation_alone'] / f['ogd']:.2f}x OGD ({f['ogd']:.1f} ns)")
        checks = []
        if 128 in by_M:
            checks.append(("F-ONS <= 200 ns/sample at M = 128",
                            by_M[128]["fast_ons"], by_M[128]["fast_ons"] <= 200))
        if 1000 in by_M:
            checks.append(("F-ONS <= 1400 ns/sample at M = 1000",
                           by_M[1000]["fast_ons"], by_M[1000]["fast_ons"] <= 1400))
            r = by_M[1000]["ons"] / by_M[1000]["fast_ons"]
            checks.append(("R-ONS / F-ONS >= 300 at M = 1000", r, r >= 300))
        worst = max(t["fast_ons"] / t["ogd"] for _, t in rows)
        checks.append(("F-ONS / OGD <= 2.5 at every M (worst)", worst, worst <= 2.5))
        if len(Ms) > 2:
            big = [M for M in Ms if M >= 64]
            slope = float(np.polyfit(np.log(big), np.log([by_M[M]["fast_ons"] for M in big]),
                                     1)[0])
            checks.append(("F-ONS time linear in M (log-log slope, M >= 64, <= 1.15)", slope,
                           slope <= 1.15))
        o = overhead(args.overhead_n, 128, max(1, args.repeat - 1))
        frac = o["wall"] / o["learner"] - 1.0
        checks.append((f"runner overhead <= 5 % (n = {args.overhead_n:,}, M = 128)",
                       100 * frac, frac <= 0.05))
        print(f"\nprotocol run {o['wall']:.3f} s, learner's own time {o['learner']:.3f} s, "
              f"one predict_learn_many call over the whole series {o['direct']:.3f} s")
        small, large = args.overhead_n // 10, args.overhead_n
        pb = {m: peak_bytes(m, 128) for m in (small, large)}
        print(f"peak traced bytes of a run (beyond the series): n = {small:,}: "
              f"{pb[small] / 1e6:.1f} MB ({pb[small] / small:.1f} B/sample); n = {large:,}: "
              f"{pb[large] / 1e6:.1f} MB ({pb[large] / large:.1f} B/sample)")
        grow = (pb[large] - pb[small]) / 1e6
        checks.append((f"memory independent of n (MB more at n = {large:,} than at "
                       f"{small:,}, <= 1)", grow, grow <= 1.0))
    load_end = os.getloadavg()[0]
    print(f"load average at the end: {load_end:.2f}")
    print("\n| target | measured | met |\n|---|---|---|")
    for name, value, ok in checks:
        print(f"| {name} | {value:.3g} | {'MET' if ok else 'MISSED'} |")
    if args.json:
        args.json.write_text(json.dumps({
            "load_1min": [load_start, load_end], "n": args.n, "repeat": args.repeat,
            "ns_per_sample": {str(M): t for M, t in rows}, "scalar_chain_ns": chain,
            "floor_ns": floor,
            "checks": [{"target": n, "value": v, "met": bool(ok)} for n, v, ok in checks],
        }, indent=1))


if __name__ == "__main__":
    main()
