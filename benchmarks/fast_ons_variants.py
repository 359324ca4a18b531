"""Fast ONS against OGD with the per-step chain shortened in ways that change rounding
(issue 25, the fast-ONS/OGD row): not kept, measured to show how far each would go.

    python benchmarks/fast_ons_variants.py [--n 1000000] [--repeat 5]

Variants of :func:`streamlearn.kernels.online_newton_step.fast_ons_chunk`, built from its
source text with one substitution each and compiled here:

* ``sqrt``: ``r = sqrt(s*s + a*a)`` instead of libm's ``hypot(s, a)``;
* ``sqrt+fma``: the same, and LLVM may fuse multiply-adds (``fastmath={'contract'}``).

Each learner runs its compiled ``predict_learn_many`` over the speech-like series; best of
``--repeat``, the variants interleaved with OGD and the landed kernel in one process. The
largest relative difference of each variant's predictions from the landed kernel's is
printed beside its time.
"""

from __future__ import annotations

import argparse
import inspect
import os
import time
import types

import numpy as np
from threadpoolctl import threadpool_limits

import streamlearn.kernels.online_newton_step as landed
from streamlearn.algorithms.series.fast_ons import FastONS
from streamlearn.algorithms.series.ogd_series import OGDSeries
from streamlearn.datasets.synthetic.series import SpeechLikeSeries


def _variant_kernels() -> dict[str, object]:
    src = inspect.getsource(landed).replace("@njit(cache=True", "@njit(cache=False")
    no_hypot = src.replace("r = math.hypot(s, a)", "r = math.sqrt(s * s + a * a)")
    fused = no_hypot.replace("@njit(cache=False)\ndef fast_ons_chunk",
                             "@njit(cache=False, fastmath={'contract'})\ndef fast_ons_chunk")
    if src == no_hypot or fused == no_hypot:
        raise SystemExit("fast_ons_chunk's source changed: update the substitutions")
    out = {}
    for name, text in (("sqrt", no_hypot), ("sqrt+fma", fused)):
        mod = types.ModuleType(f"fast_ons_{name}")
        exec(compile(text, mod.__name__, "exec"), mod.__dict__)
        out[name] = mod.fast_ons_chunk
    return out


def _learner(name: str, M: int, kernels: dict[str, object]):
    if name == "OGD":
        return OGDSeries(M=M, lr=1e-3)
    f = FastONS(M=M, alpha=1.0, lr=0.003)
    if name != "F-ONS":
        kern = kernels[name]

        def run_chunk(xin, yin, out, f=f, kern=kern):
            status, _ = kern(xin, yin, f.w_, f.xt_, f.L0_, f.L1_, f.rho_, f.lag_, f.u_,
                             f.ssum_, f.sc_, f.M, int(f.offset), f.alpha, f.lr, f.eps,
                             f.tau, out)
            if status != 0:
                raise RuntimeError("breakdown: the variants have no recovery path")
            f.steps_ += xin.shape[0]

        f._run_chunk = run_chunk
    return f


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--Ms", default="1,16,32,64,128")
    args = ap.parse_args()
    kernels = _variant_kernels()
    series = SpeechLikeSeries(n_samples=args.n + 1, seed=0).to_arrays()[1]
    x, y = series[:-1, None], series[1:]
    names = ("OGD", "F-ONS", "sqrt", "sqrt+fma")
    print(f"load average at the start: {os.getloadavg()[0]:.2f}")
    print("| M | " + " | ".join(f"{n} ns" for n in names)
          + " | F-ONS/OGD | sqrt/OGD | sqrt+fma/OGD | max rel. Δ pred sqrt, sqrt+fma |")
    print("|---" * (len(names) + 5) + "|")
    with threadpool_limits(1):
        for M in (int(m) for m in args.Ms.split(",")):
            for name in names:  # compile
                warm = _learner(name, M, kernels)
                warm.reset(1, None)
                warm.predict_learn_many(x[:5], y[:5])
            best = dict.fromkeys(names, np.inf)
            preds = {}
            for _ in range(args.repeat):
                for name in names:
                    learner = _learner(name, M, kernels)
                    learner.reset(1, None)
                    t0 = time.perf_counter()
                    preds[name] = learner.predict_learn_many(x, y)
                    best[name] = min(best[name], time.perf_counter() - t0)
            ns = {k: 1e9 * v / args.n for k, v in best.items()}
            scale = np.max(np.abs(preds["F-ONS"]))
            rel = [np.max(np.abs(preds[k] - preds["F-ONS"])) / scale
                   for k in ("sqrt", "sqrt+fma")]
            print(f"| {M} | " + " | ".join(f"{ns[k]:.1f}" for k in names)
                  + f" | {ns['F-ONS'] / ns['OGD']:.2f} | {ns['sqrt'] / ns['OGD']:.2f} | "
                  f"{ns['sqrt+fma'] / ns['OGD']:.2f} | {rel[0]:.1e}, {rel[1]:.1e} |",
                  flush=True)
    print(f"load average at the end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
