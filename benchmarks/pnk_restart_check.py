# ruff: noqa: E402  (BLAS thread variables must be set before numpy is imported)
"""PROS-N-KONS (spec Sec. 8.9): is the dictionary change worth an O(|I|^2) factor update?

For each setting: the share of the online loop spent in dictionary changes (``_restart``:
Gram matrix + ``eigh`` of the dictionary, O(|I|^3)), how often the eigen-embedding drops
directions (eigenvalues below 1e-12 of the largest; rank < |I|), and what an embedding
``z = L^{-1} k`` with ``K = L L^T`` — the factor a Cholesky rank-one update would keep at
O(|I|^2) — does: Cholesky failures (K numerically not positive definite; the eigh
embedding is used there instead), rounds whose prediction differs, and the largest score
difference. Both embeddings give the same ONS predictions in exact arithmetic (the ONS
state restarts at every change and is rotation-invariant), so any difference is rounding.

    python benchmarks/pnk_restart_check.py [--seeds 2]
"""

from __future__ import annotations

import argparse
import os
import sys
import time

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np

from streamlearn import components
from streamlearn.algorithms.kernel.pros_n_kons import PROSNKONS
from streamlearn.kernels.forks_budget import gauss_matrix

# (dataset, sigma, rows): Table-1 german and codrna sigmas; the bench's codrna setting
SETTINGS = [("german", 128.0, None), ("codrna", 64.0, None), ("codrna", 2 ** 6.5, 20000)]


class TimedPNK(PROSNKONS):
    """PROS-N-KONS unchanged, with the time and rank of each dictionary change recorded."""

    def _restart(self) -> None:
        t = time.perf_counter()
        super()._restart()
        self.restart_seconds += time.perf_counter() - t
        self.truncated += int(self.P_.shape[0] < self.n_sv_)


class CholeskyPNK(PROSNKONS):
    """The embedding a Cholesky factor update would give (computed directly here)."""

    def _restart(self) -> None:
        n = self.n_sv_
        K = gauss_matrix(self.sv_[:n], self.sv_[:n], self.gamma_)
        try:
            L = np.linalg.cholesky(0.5 * (K + K.T))
        except np.linalg.LinAlgError:
            self.failed += 1
            super()._restart()
            return
        self.P_ = np.ascontiguousarray(np.linalg.inv(L))
        self.v_, self._w, self._u = np.zeros(n), np.zeros(n), np.zeros(n)
        self.Ainv_ = np.eye(n) / self.alpha
        self.changed_ = False
        self.n_restarts_ += 1


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=2)
    args = ap.parse_args(argv)
    components.load_all()
    print("dataset  sigma   rows  seed  loop_s  restart_s  share  changes  rank<|I|  "
          "chol_failed  pred_diff  max|ds|")
    for ds, sigma, rows in SETTINGS:
        X0, y0 = components.get_stream(ds)().to_arrays()
        for seed in range(args.seeds):
            perm = np.random.default_rng(seed).permutation(X0.shape[0])[:rows]
            X, y = X0[perm], y0[perm]
            warm = TimedPNK(sigma=sigma, seed=seed)
            warm.restart_seconds, warm.truncated = 0.0, 0
            warm.reset(X.shape[1], 2)
            warm.predict_learn_many(X[:200], y[:200])  # JIT
            m = TimedPNK(sigma=sigma, seed=seed)
            m.restart_seconds, m.truncated = 0.0, 0
            m.reset(X.shape[1], 2)
            t = time.perf_counter()
            p0 = m.predict_learn_many(X, y)
            loop = time.perf_counter() - t
            c = CholeskyPNK(sigma=sigma, seed=seed)
            c.failed = 0
            c.reset(X.shape[1], 2)
            p1 = c.predict_learn_many(X, y)
            ds_max = float(np.max(np.abs(m.chunk_scores_ - c.chunk_scores_)))
            print(f"{ds:8s} {sigma:6.1f} {len(y):6d} {seed:5d} {loop:7.2f} "
                  f"{m.restart_seconds:10.2f} {100 * m.restart_seconds / loop:5.1f}% "
                  f"{m.n_restarts_:8d} {m.truncated:9d} {c.failed:12d} "
                  f"{int(np.sum(p0 != p1)):10d}  {ds_max:.1e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
