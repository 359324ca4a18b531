"""Fast ONS against regular ONS over 1e5 steps (the Fast-ONS paper's claim: the same
predictions in O(M)): max_t |x^F - x^R| / max_t |x^R| for M in {16, 64, 400}, two (alpha,
lr) settings, on the real substitutes and the synthetic stand-ins; with the breakdown
count and the smallest 1 - h^2 of the hyperbolic rotations. Writes
results/fast_ons/equivalence.md.

    python scripts/fast_ons_equivalence.py [--data-dir ../shared/datasets] [--n 100000]
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import numpy as np

from streamlearn.algorithms.series.fast_ons import FastONS
from streamlearn.algorithms.series.ons import RegularONS
from streamlearn.components import get_stream
from streamlearn.datasets.synthetic.series import SpeechLikeSeries, TemperatureLikeSeries


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", default=os.environ.get("STREAMLEARN_DATA"))
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--out", type=Path, default=Path("results/fast_ons/equivalence.md"))
    args = ap.parse_args()
    series = {}
    if args.data_dir:
        series["speech (CMU ARCTIC sample)"] = get_stream("cmu_arctic_sample")(
            data_dir=args.data_dir).to_arrays()[1]
        series["temperature (Whately)"] = get_stream("temperature_whately")(
            data_dir=args.data_dir).to_arrays()[1]
    series["speech-like (synthetic)"] = SpeechLikeSeries(
        n_samples=args.n + 1, seed=0).to_arrays()[1]
    series["temperature-like (synthetic)"] = TemperatureLikeSeries(
        n_samples=args.n + 1, seed=0).to_arrays()[1]
    lines = [f"# F-ONS vs R-ONS over {args.n:,} steps", "",
             "`python scripts/fast_ons_equivalence.py` (min-max scaled series; eps = 1e-8)",
             "", "| series | M | alpha | lr | max rel gap | breakdowns | min 1-h^2 |",
             "|---|---|---|---|---|---|---|"]
    for name, s in series.items():
        s = s[: args.n + 1]
        x, y = s[:-1, None], s[1:]
        for M in (16, 64, 400):
            for alpha, lr in ((1.0, 0.003), (0.01, 1.0)):
                fast = FastONS(M=M, alpha=alpha, lr=lr)
                fast.reset(1, None)
                pf = fast.predict_learn_many(x, y)
                reg = RegularONS(M=M, alpha=alpha, lr=lr)
                reg.reset(1, None)
                pr = reg.predict_learn_many(x, y)
                gap = np.max(np.abs(pf - pr)) / np.max(np.abs(pr))
                lines.append(f"| {name} | {M} | {alpha} | {lr} | {gap:.2e} | "
                             f"{fast.breakdowns_} | {fast.min_one_minus_h2_:.3g} |")
                print(lines[-1], flush=True)
    args.out.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
