"""λ calibration of the Ridge-BLS paper (Zhu et al., issue 12; spec §4.1): an experiment.

The paper's eight MNIST λ values were lost in the text dump; its column u0 (initial 60/3000
network, algorithm-independent) is known. For the full-size initial network on the whole
MNIST training set, the test accuracy of the ridge solution (D-Rdg, eqs. 6-7) is measured
for ``λ = 2^-30, 2^-29, …, 2^2`` (one Gram matrix, one solve per λ), and the eight blocks
are picked by :func:`pick_lambdas` (λ_1 at the BLS default 2^-30, then the accuracy drop
from λ_1 matched to the paper's). Writes ``calibration.json`` (read by the tables of
``streamlearn tables ridge_bls``) and ``calibration.md``; ≈4 min for two seeds.

    python scripts/ridge_bls_calibrate.py --seeds 0 1 [--out results/ridge_bls]
    python scripts/ridge_bls_calibrate.py --repick   # the rule again on calibration.json
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from streamlearn.reporting.papers.ridge_bls import PAPER_U0, calibration_md


def measure(data_dir: str | None, seeds: list[int],
            exponents: range = range(-30, 3)) -> dict[str, Any]:
    """Test accuracy (%) of the ridge solution of the initial MNIST network, per seed and λ."""
    import scipy.linalg
    from threadpoolctl import threadpool_limits

    from streamlearn.datasets.real.base import load_split
    from streamlearn.protocols.node_generator import BLSNodeGenerator, NodeSchedule, TestNodes
    from streamlearn.protocols.preparation import derive_seeds

    (Xtr, ytr), (Xte, yte), _ = load_split("mnist", data_dir)
    sched = NodeSchedule(updates=0)  # the paper's initial network: 6 x 10 + 3000
    acc = np.zeros((len(seeds), len(exponents)))
    t0 = time.perf_counter()
    with threadpool_limits(limits=1):
        for i, seed in enumerate(seeds):
            gen = BLSNodeGenerator(sched, derive_seeds(seed)["learner"])
            A = gen.next_block(Xtr)
            At = TestNodes(gen, Xte).block(0)
            Y = np.eye(10)[ytr]
            R = A.T @ A
            AtY = A.T @ Y
            del A
            for j, e in enumerate(exponents):
                M = R.copy()
                M[np.diag_indices_from(M)] += 2.0 ** e
                W = scipy.linalg.solve(M, AtY, assume_a="sym", check_finite=False)
                acc[i, j] = 100.0 * np.mean(np.argmax(At @ W, axis=1) == yte)
            print(f"seed {seed}: done in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    return {
        "network": "6 x 10 feature + 3000 enhancement nodes (the paper's initial MNIST network)",
        "train": int(Xtr.shape[0]), "test": int(Xte.shape[0]), "seeds": seeds,
        "grid_log2_lambda": list(exponents),
        "accuracy_mean": acc.mean(axis=0).round(4).tolist(),
        "accuracy_per_seed": acc.round(4).tolist(),
        "seconds": round(time.perf_counter() - t0, 1),
    }


def pick_lambdas(exponents: list[int], mean: np.ndarray) -> list[int]:
    """The eight λ blocks: λ_1 anchored at 2^-30 (the BLS default, spec §4.1; the paper's
    two smallest blocks share u0 = 98.30, so u0 cannot separate them), then for each later
    block the next larger grid value whose accuracy *drop from λ_1* is closest to the
    paper's drop (98.30 - u0), strictly increasing in λ as the blocks are ordered."""
    j0 = exponents.index(-30) if -30 in exponents else 0
    picks = [j0]
    for target in PAPER_U0[1:]:
        lo = min(picks[-1] + 1, len(mean) - 1)
        drop = mean[j0] - mean[lo:]
        picks.append(lo + int(np.argmin(np.abs(drop - (PAPER_U0[0] - target)))))
    return [exponents[j] for j in picks]


def with_picks(result: dict[str, Any]) -> dict[str, Any]:
    """The measurement with the picked λ blocks, their accuracies and the rule's text."""
    exponents = list(result["grid_log2_lambda"])
    mean = np.asarray(result["accuracy_mean"])
    picked = pick_lambdas(exponents, mean)
    assert pick_lambdas.__doc__ is not None
    return {**result, "paper_u0": list(PAPER_U0), "picked_log2_lambda": picked,
            "picked_accuracy": [float(mean[exponents.index(e)]) for e in picked],
            "rule": pick_lambdas.__doc__.split("\n\n")[0].replace("\n", " ")}


def write(result: dict[str, Any], out: Path) -> None:
    """calibration.json and calibration.md in ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "calibration.json").write_text(json.dumps(result, indent=1) + "\n")
    (out / "calibration.md").write_text(calibration_md(result))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0])
    parser.add_argument("--out", type=Path, default=Path("results/ridge_bls"))
    parser.add_argument("--data-dir", default=None,
                        help="directory of the MNIST files (default: $STREAMLEARN_DATA)")
    parser.add_argument("--repick", action="store_true",
                        help="only re-apply the picking rule to OUT/calibration.json")
    args = parser.parse_args(argv)
    if args.repick:
        measured = json.loads((args.out / "calibration.json").read_text())
    else:
        measured = measure(args.data_dir, args.seeds)
    result = with_picks(measured)
    write(result, args.out)
    print(json.dumps({k: result[k] for k in ("picked_log2_lambda", "picked_accuracy")}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
