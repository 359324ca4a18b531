"""The spectrum RI-BLS inverts on MNIST, and what a truncated pseudo-inverse drops.

RI-BLS computes ``W = (U + λI)⁻¹ V`` at every step (Online-BLS paper, Appendix A.2). An
implementation that writes ``pinv`` there (MATLAB's ``pinv``, ``torch.linalg.pinv``)
drops the eigenvalues of ``U + λI`` below ``n · eps · λ_max``. This script streams MNIST
(seed 0, Table 3's RI-BLS parameters: λ = 1e-8, shrink 0.8 from the box bound) through
a probe learner that only accumulates ``U`` and ``V`` and, at samples 100, 300, 1,000,
3,000, 10,000, 30,000 and 70,000, writes one JSON line: the largest and smallest
eigenvalue, that tolerance, how many eigenvalues lie below it (and within 10 λ), the
fraction of ``V``'s norm in those directions, and how far the truncated pseudo-inverse's
weights lie from the exact inverse's (relative 2-norm). The run goes through
``streamlearn run``, so the stream's order and the nodes are those of a run; the probe's
predictions are meaningless (its weights stay zero) and its run folder is a temporary one.

    .venv/bin/python scripts/ribls_pinv_spectrum.py [--out FILE]
    (default results/online_bls/ribls_pinv_mnist_prefix/spectrum.jsonl; ~10 CPU-minutes)
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from streamlearn.algorithms.bls.ribls import RIBLS

ROOT = Path(__file__).resolve().parents[1]
CHECKPOINTS = (100, 300, 1000, 3000, 10_000, 30_000, 70_000)


class SpectrumProbe(RIBLS):
    """RI-BLS's ``U`` and ``V`` (no inverse); the spectrum at :data:`CHECKPOINTS`."""

    def _learn_a(self, a: np.ndarray, y: int) -> None:
        self.U_ += np.outer(a, a)
        self.V_[:, y] += a
        self.n_seen_ += 1
        if self.n_seen_ not in CHECKPOINTS or not os.environ.get("SPECTRUM_OUT"):
            return
        m = self.U_.shape[0]
        ev, Q = np.linalg.eigh(self.U_ + self.lam * np.eye(m))
        tol = m * np.finfo(float).eps * ev[-1]
        small = ev <= tol
        Vq = Q.T @ self.V_
        W_inv = (Q / ev) @ Vq
        W_pinv = (Q[:, ~small] / ev[~small]) @ Vq[~small]
        rec = {"k": self.n_seen_, "m": m, "lam": self.lam, "eig_max": float(ev[-1]),
               "eig_min": float(ev[0]), "pinv_tol": float(tol),
               "n_below_tol": int(small.sum()), "n_within_10_lam": int((ev < 10 * self.lam).sum()),
               "V_norm_fraction_below_tol": float(np.linalg.norm(Vq[small])
                                                  / np.linalg.norm(Vq)),
               "W_relative_change": float(np.linalg.norm(W_inv - W_pinv)
                                          / np.linalg.norm(W_inv))}
        with open(os.environ["SPECTRUM_OUT"], "a") as f:
            f.write(json.dumps(rec) + "\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path,
                    default=ROOT / "results/online_bls/ribls_pinv_mnist_prefix/spectrum.jsonl")
    args = ap.parse_args()
    out = args.out.resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    out.unlink(missing_ok=True)
    cfg = ("name: ribls_pinv_spectrum\nrepeats: 1\nstreams: [{name: mnist, label: MNIST}]\n"
           "algorithms:\n  - name: ribls_pinv_spectrum:SpectrumProbe\n    label: probe\n"
           "    params: {lam: 1.0e-8, enh_shrink: 0.8, shrink_source: box}\n"
           "metrics: [oca]\nevaluation: {fused: false}\noutputs: {plots: []}\n")
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "c.yaml").write_text(cfg)
        env = {**os.environ, "SPECTRUM_OUT": str(out),
               "PYTHONPATH": os.pathsep.join([str(ROOT / "scripts"),
                                              os.environ.get("PYTHONPATH", "")])}
        subprocess.run([sys.executable, "-m", "streamlearn", "run", str(Path(tmp) / "c.yaml"),
                        "--out", str(Path(tmp) / "o"), "--jobs", "1", "--quiet"],
                       env=env, check=True, stdout=subprocess.DEVNULL)
    # the run's pre-run checks build fresh copies on the first 251 samples: keep the
    # timed run's lines, one per checkpoint (the last written for each)
    lines = {json.loads(x)["k"]: x for x in out.read_text().splitlines()}
    out.write_text("".join(lines[k] + "\n" for k in sorted(lines)))
    for k in sorted(lines):
        r = json.loads(lines[k])
        print(f"k = {k:>6}: {r['n_below_tol']:>4} of {r['m']} eigenvalues below the pinv "
              f"tolerance {r['pinv_tol']:.2e} (eig max {r['eig_max']:.3g}, min "
              f"{r['eig_min']:.3g}); V's norm there {r['V_norm_fraction_below_tol']:.1e}; "
              f"W changes by {r['W_relative_change']:.4f}")


if __name__ == "__main__":
    main()
