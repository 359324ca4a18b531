"""Memory layouts of the BLS kernels, each against the layout it replaced, in one process
(issue 25, the blocked learner's floor): same bits, measured speed.

    python benchmarks/bls_kernel_layouts.py [--rounds 7] [--json FILE]

* ``solve_ut_cols`` (``U⁻ᵀa`` of a block's samples, :mod:`streamlearn.kernels.blocked_qr_rls`)
  compiled here at the replaced tile of 128 rows and at the landed :data:`SOLVE_TILE`;
* the broad features (:func:`streamlearn.kernels.broad_features.broad_features`) one row
  at a time through ``_preactivations`` (the replaced layout of 21 Dec–7 Dec, eight weight
  rows per pass over one row's ``z`` and ``h``, compiled here) and four rows at a time, a
  tile of columns at a time (landed 7 Dec, twenty-fourth session);
* the enhancement nodes' ``tanh``: the C library's (every learner's but the blocked ones')
  against :func:`streamlearn.kernels.vector_math.tanh` (the blocked learners', landed 7
  Dec, twenty-sixth session), in the landed feature kernel; not the same bits (within 2
  ulp: the largest difference is printed in units in the last place);
* ``online_bls_blocked`` (m = 1100, c = 10, 1,024 samples after 256) with the replaced
  layouts and the C library's ``tanh`` against the landed ones (the predictions that
  differ are counted: the ``tanh`` moves last bits).

The layout of one weight row per pass, replaced on 6 Dec by eight, was timed by this
script's earlier version (``benchmarks/out/intel/bls_kernel_layouts.json``, git history).

Each pair runs alternately, ``--rounds`` times; the ratio replaced/landed is taken round by
round (median, min, max), and the outputs of both are compared first (bit for bit where
the change keeps the bits). One
BLAS thread; the machine's load is printed beside the figures.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numba
import numpy as np
from threadpoolctl import threadpool_limits

import streamlearn.algorithms.bls.broad_learning as broad_learning
import streamlearn.algorithms.bls.online_bls_blocked as blocked
import streamlearn.kernels.blocked_qr_rls as qr_kernels
import streamlearn.kernels.broad_features as features
from streamlearn import components

OLD_TILE = 128


def _solve_at_tile(tile: int) -> Callable[..., int]:
    """``solve_ut_cols`` compiled with ``SOLVE_TILE = tile`` (a global read at compile time)."""
    landed = qr_kernels.SOLVE_TILE
    qr_kernels.SOLVE_TILE = tile
    try:
        plain = getattr(qr_kernels.solve_ut_cols, "py_func", qr_kernels.solve_ut_cols)
        kernel = numba.njit(fastmath={"contract"})(plain)
        kernel(np.asfortranarray(np.eye(8)), np.ones((1, 8)), 0, 1, np.zeros((8, 1)), 0)
    finally:
        qr_kernels.SOLVE_TILE = landed
    return kernel


@numba.njit
def _row_at_a_time_features(X: np.ndarray, Wf: np.ndarray, bf: np.ndarray, We: np.ndarray,
                            be: np.ndarray, scale: float, row_zscore: int,
                            out: np.ndarray, squash: int = 1) -> int:
    """The broad features as before four rows at a time: each row through
    ``_preactivations`` (eight weight rows per pass), then the C library's ``tanh``
    (whatever ``squash`` asks)."""
    n, d = X.shape
    p = Wf.shape[1]
    q = We.shape[1]
    x, z, h = np.empty(d), np.empty(p), np.empty(q)
    status = 0
    for r in range(n):
        features._preactivations(X[r], Wf, bf, We, be, row_zscore, x, z, h)
        row = out[r]
        for j in range(p):
            row[j] = z[j]
        for j in range(q):
            row[p + j] = math.tanh(scale * h[j])
        if not features._finite(row):
            status = 1
    return status


def _alternate(a: Callable[[], Any], b: Callable[[], Any], rounds: int) -> dict[str, Any]:
    ta, tb = [], []
    for _ in range(rounds):
        t = time.perf_counter()
        a()
        ta.append(time.perf_counter() - t)
        t = time.perf_counter()
        b()
        tb.append(time.perf_counter() - t)
    ratio = np.array(ta) / np.array(tb)
    return {"replaced_s": float(np.median(ta)), "landed_s": float(np.median(tb)),
            "ratio": [float(np.median(ratio)), float(ratio.min()), float(ratio.max())]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    rng = np.random.default_rng(0)
    out: dict[str, Any] = {"load_before": list(os.getloadavg())}
    with threadpool_limits(1):
        # the substitution of a full block, m = 1100
        m, b = 1100, 128
        A0 = rng.standard_normal((3000, m))
        U = np.asfortranarray(np.linalg.cholesky(A0.T @ A0 / 3000 + np.eye(m)).T)
        A = rng.standard_normal((b, m))
        old_solve, new_solve = _solve_at_tile(OLD_TILE), qr_kernels.solve_ut_cols
        q_old, q_new = np.zeros((m, b)), np.zeros((m, b))
        old_solve(U, A, 0, b, q_old, 0)
        new_solve(U, A, 0, b, q_new, 0)
        assert np.array_equal(q_old, q_new), "the tile changed a bit"
        out["solve"] = {"m": m, "block": b, "old_tile": OLD_TILE,
                        "new_tile": qr_kernels.SOLVE_TILE, **_alternate(
                            lambda: old_solve(U, A, 0, b, q_old, 0),
                            lambda: new_solve(U, A, 0, b, q_new, 0), args.rounds)}
        # the broad features, 784 -> 100 -> 1000 nodes
        n, d, p, q = 1024, 784, 100, 1000
        X = rng.random((n, d))
        Wf, bf = rng.uniform(-1, 1, (d, p)), rng.uniform(-1, 1, p)
        We, be = rng.uniform(-1, 1, (p, q)) * 0.05, rng.uniform(-1, 1, q)
        old_features, new_features = _row_at_a_time_features, features.broad_features
        f_old, f_new = np.empty((n, p + q)), np.empty((n, p + q))
        old_features(X, Wf, bf, We, be, 0.7, 1, f_old)
        new_features(X, Wf, bf, We, be, 0.7, 1, f_new)
        assert np.array_equal(f_old, f_new), "four rows at a time changed a bit"
        out["features"] = {"n": n, "d": d, "feature_nodes": p, "enhancement_nodes": q,
                           **_alternate(lambda: old_features(X, Wf, bf, We, be, 0.7, 1, f_old),
                                        lambda: new_features(X, Wf, bf, We, be, 0.7, 1, f_new),
                                        args.rounds)}
        # the enhancement nodes' tanh: the C library's against the vectorised one
        f_libm, f_vec = np.empty((n, p + q)), np.empty((n, p + q))
        libm, vector = int(features.Squash.LIBM_TANH), int(features.Squash.VECTOR_TANH)
        new_features(X, Wf, bf, We, be, 0.7, 1, f_libm, libm)
        new_features(X, Wf, bf, We, be, 0.7, 1, f_vec, vector)
        assert np.array_equal(f_libm, f_new), "the default is the C library's tanh"
        ulps = np.abs(f_libm - f_vec) / np.spacing(np.abs(f_libm))
        out["tanh"] = {"n": n, "enhancement_nodes": q, "max_ulp_apart": float(ulps.max()),
                       **_alternate(
                           lambda: new_features(X, Wf, bf, We, be, 0.7, 1, f_libm, libm),
                           lambda: new_features(X, Wf, bf, We, be, 0.7, 1, f_vec, vector),
                           args.rounds)}
        # the learner, all layouts at once
        Xs, ys = rng.random((1280, 784)), rng.integers(0, 10, 1280)

        def learner(old: bool) -> np.ndarray:
            blocked.solve_ut_cols = old_solve if old else new_solve
            broad_learning.broad_features = old_features if old else new_features
            blocked.BlockBLS._vector_tanh = not old
            try:
                model = components.get_algorithm("online_bls_blocked")(seed=0)
                model.reset(784, 10)
                model.predict_learn_many(Xs[:256], ys[:256])
                return model.predict_learn_many(Xs[256:], ys[256:])
            finally:
                blocked.solve_ut_cols = new_solve
                broad_learning.broad_features = new_features
                blocked.BlockBLS._vector_tanh = True

        differ = int(np.count_nonzero(learner(True) != learner(False)))
        out["online_bls_blocked"] = {"m": 1100, "c": 10, "n": 1024,
                                     "predictions_differing": differ, **_alternate(
                                         lambda: learner(True), lambda: learner(False),
                                         args.rounds)}
    out["load_after"] = list(os.getloadavg())
    for name in ("solve", "features", "tanh", "online_bls_blocked"):
        r = out[name]
        print(f"{name:20s} replaced/landed {r['ratio'][0]:.2f} [{r['ratio'][1]:.2f}-"
              f"{r['ratio'][2]:.2f}]  ({1e3 * r['replaced_s']:.1f} -> "
              f"{1e3 * r['landed_s']:.1f} ms)")
    print(f"tanh: the two {out['tanh']['max_ulp_apart']:.1f} ulp apart at most; "
          f"online_bls_blocked: {out['online_bls_blocked']['predictions_differing']} of "
          f"1024 predictions differ")
    print(f"load {out['load_before']} -> {out['load_after']}; the layouts' outputs equal "
          f"bit for bit")
    if args.json:
        args.json.write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
