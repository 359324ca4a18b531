"""The floor of fast ONS against OGD: the fast recursion alone, nothing else (issue 25, the
fast-ONS/OGD row).

    python benchmarks/fast_ons_floor.py [--n 1000000] [--repeat 5] [--Ms 1,16,32,64,128]
        > benchmarks/out/fast_ons_floor.md

Fast ONS (Civek and Kozat, Algorithm 1, lines 9-13) must, at every step, rotate the
pre-array: two dot products ``a = x_t^T L0``, ``b = x_t^T L1``, then ``r = hypot(s, a)``,
three divisions, ``sqrt(1 - h^2)`` and a fourth division, then the ``M + 1`` rows of
``[0; rho], L0, L1``. The next step's ``a`` and ``b`` read the rows this step wrote, so
the chain is serial. ``recursion alone`` below is that work and the prediction's dot
product (the landed ``_dot3``, one pass for all three), nothing more: no weight step, no
breakdown checks, no lag products. It ends in the landed kernel's rotation state (column
``same state``: bit for bit here; tests/benchmarks/test_fast_ons_floor.py holds it to
1e-9 on any CPU), so it is a faster-than-possible fast ONS, not another algorithm. The ``sqrt``
column replaces ``hypot`` by ``sqrt(s*s + a*a)`` (changes rounding; for the bound only).

One BLAS thread, JIT compilation excluded, best of ``--repeat``, all four interleaved in
one process.
"""

from __future__ import annotations

import argparse
import math
import os
import time

import numpy as np
from numba import njit
from threadpoolctl import threadpool_limits

from streamlearn.algorithms.series.fast_ons import FastONS
from streamlearn.algorithms.series.ogd_series import OGDSeries
from streamlearn.datasets.synthetic.series import SpeechLikeSeries
from streamlearn.kernels.online_newton_step import _dot3

_BLOCK = 512  # as the landed kernel: the delay line is a view into a block buffer


def _make_recursion(use_hypot: bool):
    @njit(cache=False)
    def recursion(xin, w, L0, L1, rho, sc, xt, M):
        D = M + 1
        K = max(_BLOCK, D)
        win = np.empty(K + D)
        win[K:] = xt
        old = np.zeros(D)
        new = np.zeros(D)
        old[1:] = rho
        s = sc[0]
        k = 0
        for i in range(xin.shape[0]):
            if k == K:
                for j in range(D - 1, -1, -1):
                    win[K + j] = win[j]
                k = 0
            k += 1
            o = K - k
            win[o] = xin[i]
            _, a, b = _dot3(win[o:o + D], w, L0, L1, M)
            r = math.hypot(s, a) if use_hypot else math.sqrt(s * s + a * a)
            cg = s / r
            sg = a / r
            f0 = cg * s + sg * a
            h = b / r
            g = 1.0 / math.sqrt(1.0 - h * h)
            s = g * (f0 - h * b)
            p0 = old[M]
            p1 = L0[M]
            p2 = L1[M]
            q0 = cg * p0 + sg * p1
            L0[M] = -sg * p0 + cg * p1
            L1[M] = g * (p2 - h * q0)
            for j in range(M):
                p0 = old[j]
                p1 = L0[j]
                p2 = L1[j]
                q0 = cg * p0 + sg * p1
                L0[j] = -sg * p0 + cg * p1
                new[j + 1] = g * (q0 - h * p2)
                L1[j] = g * (p2 - h * q0)
            old, new = new, old
        xt[:] = win[K - k:K - k + D]
        rho[:] = old[1:]
        sc[0] = s
    return recursion


def rotation_alone_ns(M: int, series: np.ndarray, repeat: int, use_hypot: bool = True,
                      ) -> float:
    """Best-of-``repeat`` ns per step of the rotation alone over ``series`` (one-step-ahead
    pairs, as the learners see it), JIT compilation excluded."""
    kern = _make_recursion(use_hypot)
    xs = np.ascontiguousarray(series[:-1])
    f = FastONS(M=M, alpha=1.0, lr=0.003)
    f.reset(1, None)
    kern(xs[:5].copy(), f.w_, f.L0_, f.L1_, f.rho_, f.sc_, f.xt_, M)
    best = np.inf
    for _ in range(repeat):
        f = FastONS(M=M, alpha=1.0, lr=0.003)
        f.reset(1, None)
        t0 = time.perf_counter()
        kern(xs, f.w_, f.L0_, f.L1_, f.rho_, f.sc_, f.xt_, M)
        best = min(best, time.perf_counter() - t0)
    return 1e9 * best / xs.size


def state_gap(a: FastONS, b: FastONS) -> float:
    """Largest relative difference of the rotation states ``L0, L1, rho, sqrt(eta)``
    (0.0 when bit for bit the same)."""
    gaps = [np.max(np.abs(u - v)) / max(np.max(np.abs(v)), 1e-300)
            for u, v in ((a.L0_, b.L0_), (a.L1_, b.L1_), (a.rho_, b.rho_),
                         (a.sc_[:1], b.sc_[:1]))]
    return float(max(gaps))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--Ms", default="1,16,32,64,128")
    args = ap.parse_args()
    kernels = {"hypot": _make_recursion(True), "sqrt": _make_recursion(False)}
    series = SpeechLikeSeries(n_samples=args.n + 1, seed=0).to_arrays()[1]
    x, y = series[:-1, None], series[1:]
    xs = np.ascontiguousarray(x[:, 0])
    print(f"load average at the start: {os.getloadavg()[0]:.2f}\n")
    print("| M | OGD ns | F-ONS ns | recursion alone ns | recursion alone, sqrt ns | "
          "F-ONS/OGD | alone/OGD | alone sqrt/OGD | F-ONS/alone | same state |")
    print("|---" * 10 + "|")

    def fast_ons(M: int) -> FastONS:
        f = FastONS(M=M, alpha=1.0, lr=0.003)
        f.reset(1, None)
        return f

    with threadpool_limits(1):
        for M in (int(m) for m in args.Ms.split(",")):
            ogd = OGDSeries(M=M, lr=1e-3)
            ogd.reset(1, None)
            ogd.predict_learn_many(x[:5], y[:5])
            fast_ons(M).predict_learn_many(x[:5], y[:5])
            for kern in kernels.values():
                f = fast_ons(M)
                kern(xs[:5].copy(), f.w_, f.L0_, f.L1_, f.rho_, f.sc_, f.xt_, M)
            best = dict.fromkeys(("OGD", "F-ONS", "hypot", "sqrt"), np.inf)
            for _ in range(args.repeat):
                ogd = OGDSeries(M=M, lr=1e-3)
                ogd.reset(1, None)
                t0 = time.perf_counter()
                ogd.predict_learn_many(x, y)
                best["OGD"] = min(best["OGD"], time.perf_counter() - t0)
                landed = fast_ons(M)
                t0 = time.perf_counter()
                landed.predict_learn_many(x, y)
                best["F-ONS"] = min(best["F-ONS"], time.perf_counter() - t0)
                alone = {}
                for name, kern in kernels.items():
                    f = alone[name] = fast_ons(M)
                    t0 = time.perf_counter()
                    kern(xs, f.w_, f.L0_, f.L1_, f.rho_, f.sc_, f.xt_, M)
                    best[name] = min(best[name], time.perf_counter() - t0)
            gap = state_gap(alone["hypot"], landed)
            same = "bit for bit" if gap == 0.0 else f"{gap:.1e} rel."
            ns = {k: 1e9 * v / args.n for k, v in best.items()}
            print(f"| {M} | {ns['OGD']:.1f} | {ns['F-ONS']:.1f} | {ns['hypot']:.1f} | "
                  f"{ns['sqrt']:.1f} | {ns['F-ONS'] / ns['OGD']:.2f} | "
                  f"{ns['hypot'] / ns['OGD']:.2f} | {ns['sqrt'] / ns['OGD']:.2f} | "
                  f"{ns['F-ONS'] / ns['hypot']:.2f} | {same} |", flush=True)
    print(f"\nload average at the end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
