"""Ridge-BLS output-weight algorithms: per-update time, Chol-1 speedups and peak memory.

Usage: python benchmarks/bench_ridge_bls.py [--l 20000] [--sizes 1000 2000 4000]
       [--q 500] [--repeat 2] [--threads 1] [--out results/ridge_bls/bench.md]

For each size ``k`` a random tanh node matrix ``A`` (``l × (k + q)``) is built; every
algorithm is initialised on the first ``k`` columns (untimed) and one update of ``q``
columns is timed (best of ``--repeat``). Speedups are time(Orig.)/time(Chol-1) and
time(Exg-E)/time(Chol-1), printed beside the paper's Table VI "additional time" ratios at
the update whose ``k`` is closest to the same ``k/q`` ratio (MNIST: ``q = 2010``). Peak
memory is the ``tracemalloc`` peak of the update over what the algorithm must hold: its
state at size ``k + q`` (``P``: ``k × l``; ``F`` or the Gram matrix: ``k × k``) and the
node matrix ``A``.
"""

from __future__ import annotations

import argparse
import time
import tracemalloc
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from streamlearn import components, registry
from streamlearn.reporting.papers.ridge_bls import paper_values

ALGOS = (("bls_orig", "Orig."), ("bls_rinv", "R-Inv"), ("bls_exg_e", "Exg-E"),
         ("bls_chol2", "Chol-2"), ("bls_chol1", "Chol-1"), ("d_rdg", "D-Rdg"))


def _problem(n: int, k: int, q: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 64))
    A = np.asfortranarray(np.tanh(X @ rng.normal(size=(64, k + q)) / 8.0
                                  + 0.1 * rng.normal(size=(n, k + q))))
    return A, np.eye(10)[rng.integers(0, 10, n)]


def bench(n: int, k: int, q: int, repeat: int, lam: float) -> dict[str, dict[str, float]]:
    A, Y = _problem(n, k, q)
    out = {}
    for name, label in ALGOS:
        best, peak = np.inf, 0
        for _ in range(repeat):
            learner = registry.ALGORITHMS[name](lam=lam)
            learner.reset(k + q, Y.shape[1])
            learner.initialize(A[:, :k], Y)
            tracemalloc.start()
            tracemalloc.reset_peak()
            base = tracemalloc.get_traced_memory()[0]
            t0 = time.perf_counter()
            learner.update(A[:, :k], A[:, k:])
            dt = time.perf_counter() - t0
            peak = max(peak, tracemalloc.get_traced_memory()[1] - base)
            tracemalloc.stop()
            assert not learner.failed, label
            best = min(best, dt)
        state = learner.model_bytes()
        out[label] = {"seconds": best, "update_peak": peak, "state": state}
        del learner
    out["_A"] = {"bytes": A.nbytes}
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--l", type=int, default=20000, help="training samples")
    p.add_argument("--sizes", type=int, nargs="+", default=[1000, 2000, 4000])
    p.add_argument("--q", type=int, default=500, help="nodes added by the update")
    p.add_argument("--repeat", type=int, default=2)
    p.add_argument("--threads", type=int, default=1, help="BLAS threads (runs use 1)")
    p.add_argument("--lam", type=float, default=2.0 ** -19)
    p.add_argument("--out", type=Path, default=None, help="also write the table here")
    args = p.parse_args()
    components.load_all()
    t6 = paper_values()["table6"]
    mb = 2.0 ** 20
    lines = [f"Ridge-BLS update benchmark: l = {args.l}, q = {args.q}, λ = {args.lam:g}, "
             f"{args.threads} BLAS thread(s), best of {args.repeat}; seconds per update", "",
             "| k | " + " | ".join(lab for _, lab in ALGOS)
             + " | Orig./Chol-1 | Exg-E/Chol-1 | paper Orig./Chol-1 | paper Exg-E/Chol-1 |",
             "|---" * (len(ALGOS) + 5) + "|"]
    mem = ["", "Peak traced memory of the update (MiB) / learner state after it (MiB); "
           "node matrix A (MiB) held by the protocol:", "",
           "| k | A | " + " | ".join(lab for _, lab in ALGOS) + " |",
           "|---" * (len(ALGOS) + 2) + "|"]
    with threadpool_limits(limits=args.threads):
        for k in args.sizes:
            r = bench(args.l, k, args.q, args.repeat, args.lam)
            ratio = k / args.q
            # the paper's update u has k = 3060 + 2010 (u - 1) before it, q = 2010
            u = min(range(1, len(t6)), key=lambda i: abs((3060 + 2010 * (i - 1)) / 2010
                                                          - ratio))
            s = [r[lab]["seconds"] for _, lab in ALGOS]
            lines.append(
                f"| {k} | " + " | ".join(f"{x:.3f}" for x in s)
                + f" | {r['Orig.']['seconds'] / r['Chol-1']['seconds']:.2f}"
                + f" | {r['Exg-E']['seconds'] / r['Chol-1']['seconds']:.2f}"
                + f" | {t6[u]['add_S_orig']:.2f} (u{u})"
                + f" | {t6[u]['add_S_exge']:.2f} (u{u}) |")
            mem.append(f"| {k} | {r['_A']['bytes'] / mb:.0f} | " + " | ".join(
                f"{r[lab]['update_peak'] / mb:.0f} / {r[lab]['state'] / mb:.0f}"
                for _, lab in ALGOS) + " |")
            print(lines[-1], flush=True)
    text = "\n".join(lines + mem) + "\n"
    print(text)
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text)


if __name__ == "__main__":
    main()
