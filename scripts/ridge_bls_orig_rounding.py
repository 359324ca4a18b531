"""Orig. against Exg-E on one network, update by update: is Orig.'s fall at the paper's
size rounding accumulated in its explicitly updated generalized inverse ``Pᵀ``?
(issue 26: the cause of the ``mnist_full_mid`` Orig. cells below the paper).

Orig. (Ridge-BLS paper, Algs. 2-3, eqs. 20-24) and Exg-E (Algs. 4-5, eqs. 25-33) are the
same solution in exact arithmetic (spec §2.7): with ``D_j`` the update's ``D`` (23)/(30),
both states represent ``P_k = M_k⁻¹ A_kᵀ`` with

    M_k = A_kᵀ A_k + λ I + blkdiag(0, E_1, …, E_u),
    E_j = -λ D_jᵀ D_j - D_jᵀ blkdiag(0, E_1, …, E_{j-1}) D_j

(Exg-E's factor: ``F Fᵀ = M_k⁻¹``, from eqs. 31-32). Both learners (the registered
classes, unchanged) run side by side in one process on the network the protocol draws for
the config's first stream and seed (same node seed, rows regenerated in blocks, one BLAS
thread), so their accuracies are the records' accuracies. Before every update the script
measures, from the two states:

* ``rel_P``: ``‖P_orig[:, S] - F Fᵀ A_Sᵀ‖_F / ‖F Fᵀ A_Sᵀ‖_F`` on the first row block ``S``;
* ``eta_orig``, ``eta_exg``: each state's backward error in the defining equation,
  ``‖M_k X - A_Sᵀ‖_F / (‖M_k‖_F ‖X‖_F + ‖A_Sᵀ‖_F)`` (``M_k`` formed explicitly, with
  Exg-E's ``D_j``), of the order of the unit roundoff for a stable recursion;
* ``rel_D``, ``rel_C``: the update's ``D = P_k H`` and residual ``C = H - A_k D`` (22) of
  the two, relative to Exg-E's; ``c_over_h``: ``‖C‖_F / ‖H‖_F`` (how little of the new
  nodes lies outside the old ones) and ``c_sigma_min_sq``: the smallest eigenvalue of
  ``CᵀC``, against λ, which bounds how much (21a)'s ``(CᵀC + λI)⁻¹`` magnifies an error
  in ``C``;

and after it the two test accuracies, the share of test samples they classify differently
and ``rel_W``. Writes one entry of ``orig_rounding.json`` (key: config name and λ; the
table ``orig_rounding.md`` is generated from it by ``streamlearn tables ridge_bls``)::

    python scripts/ridge_bls_orig_rounding.py configs/ridge_bls/mnist_full_mid.yaml \\
        --lam 9.5367431640625e-07 --out results/ridge_bls     # ~45 min, ~17 GiB peak
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import numpy as np

from streamlearn import components
from streamlearn.algorithms.bls_nodes.bls_exg_e import ExgEBLS
from streamlearn.algorithms.bls_nodes.bls_orig import OriginalBLS
from streamlearn.algorithms.linalg import tri_mul, tri_t_mul
from streamlearn.config.loading import load_config
from streamlearn.evaluation.records import machine_info
from streamlearn.protocols.node_generator import (
    BLSNodeGenerator,
    RowBlockNodes,
    TestNodes,
    _row_blocks,
)


def _rel(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.linalg.norm(a - b) / np.linalg.norm(b))


def _eta(M: np.ndarray, X: np.ndarray, B: np.ndarray) -> float:
    """Backward error of ``X`` in ``M X = B`` (Frobenius norms)."""
    return float(np.linalg.norm(M @ X - B)
                 / (np.linalg.norm(M) * np.linalg.norm(X) + np.linalg.norm(B)))


#: rows of ``S`` whose columns of ``P_k`` are also solved for accurately
REF_ROWS = 8


def refined_solve(M: np.ndarray, B: np.ndarray,
                  steps: int = 3) -> tuple[np.ndarray, float]:
    """``M⁻¹ B`` by LU in float64 and ``steps`` rounds of iterative refinement with the
    residual ``B - M X`` accumulated in extended precision (``np.longdouble``, 64-bit
    mantissa on x86-64), row chunk by row chunk: accurate to about ``cond(M)·2⁻⁶⁴``
    relative where a float64 solve gets ``cond(M)·2⁻⁵³`` (the reference both states are
    measured against); with the last correction's relative size (how far from converged
    the reference still is)."""
    import scipy.linalg

    lu = scipy.linalg.lu_factor(M, check_finite=False)
    X = scipy.linalg.lu_solve(lu, B, check_finite=False)
    Bl = B.astype(np.longdouble)
    for _ in range(steps):
        Xl = X.astype(np.longdouble)
        R = np.empty_like(B)
        for i in range(0, M.shape[0], 512):
            R[i:i + 512] = (Bl[i:i + 512] - M[i:i + 512].astype(np.longdouble) @ Xl)
        dX = scipy.linalg.lu_solve(lu, R, check_finite=False)
        X = X + dX
    return X, float(np.linalg.norm(dX) / np.linalg.norm(X))


def measure(config: Path, lam: float, smoke: bool = False) -> dict[str, Any]:
    """The per-update comparison of Orig. and Exg-E for ``config``'s first stream and
    seed at ``lam`` (module docstring)."""
    from threadpoolctl import threadpool_limits

    components.load_all()
    cfg = load_config(config)
    if smoke:
        cfg = cfg.smoke_version()
    if cfg.protocol != "incremental-nodes":
        raise SystemExit(f"{config}: not an incremental-nodes config")
    protocol = components.get_protocol(cfg.protocol)(**cfg.protocol_params)
    stream, seed = cfg.streams[0], cfg.seeds[0]
    rows_out: list[dict[str, Any]] = []
    t_start = time.perf_counter()
    with threadpool_limits(limits=1):
        data = protocol.prepare(stream, seed, None)
        s = protocol.schedule()
        X, y = data.X, data.y
        Xte, yte = data.extra["X_test"], data.extra["y_test"]
        c = int(data.n_classes or 2)
        n, kmax = X.shape[0], s.max_nodes
        Y = np.zeros((n, c))
        Y[np.arange(n), y] = 1.0
        Y.setflags(write=False)
        gen = BLSNodeGenerator(s, int(data.info["node_seed"]), rows=True)
        test_nodes = TestNodes(gen, Xte)
        At = np.empty((Xte.shape[0], kmax), order="F")
        orig, exg = OriginalBLS(lam=lam), ExgEBLS(lam=lam)
        for learner in (orig, exg):
            learner.reset(kmax, c)
        S = _row_blocks(n)[0]
        G = np.zeros((kmax, kmax), order="F")  # A_kᵀ A_k, grown block by block
        AtY = np.zeros((kmax, c))
        corr: list[tuple[slice, np.ndarray]] = []  # the blocks E_j of M_k
        k = 0
        for u in range(s.updates + 1):
            H = gen.next_block(X)
            q = H.shape[1]
            row: dict[str, Any] = {"update": u, "nodes": k + q}
            AtY[k:k + q] = H.T @ Y
            if u == 0:
                G[:q, :q] = H.T @ H
                orig.initialize(H, Y)
                exg.initialize(H, Y)
            else:
                A = RowBlockNodes(gen, u, n)
                AtH = A.T @ H
                F = exg.F
                D_e = tri_mul(F, tri_t_mul(F, AtH))
                D_o = orig.P @ H
                AD = A @ np.hstack([D_o, D_e])
                C_o, C_e = H - AD[:, :q], H - AD[:, q:]
                del AD
                CtC = C_e.T @ C_e
                row.update(rel_D=_rel(D_o, D_e), rel_C=_rel(C_o, C_e),
                           c_over_h=float(np.linalg.norm(C_e) / np.linalg.norm(H)),
                           c_sigma_min_sq=float(np.linalg.eigvalsh(CtC)[0]))
                del C_o, C_e, CtC
                orig.update(A, H)
                exg.update(A, H)
                del A
                G[:k, k:k + q] = AtH
                G[k:k + q, :k] = AtH.T
                G[k:k + q, k:k + q] = H.T @ H
                # M_{k+q}'s new diagonal block: HᵀH + λI - λ DᵀD - Dᵀ corr_k D
                block = -lam * (D_e.T @ D_e)
                for b, cb in corr:
                    block -= D_e[b].T @ (cb @ D_e[b])
                corr.append((slice(k, k + q), block))
                del AtH, D_e, D_o
            del H
            k += q
            # the defining equation M_k P_k = A_kᵀ on the rows S, and W = M_k⁻¹ A_kᵀ Y
            M = G[:k, :k].copy()
            for b, block in corr:
                M[b, b] += block
            M[np.diag_indices(k)] += lam
            AS = gen.training_rows(S, u + 1)
            Xo = np.ascontiguousarray(orig.P[:, S])
            Xe = tri_mul(exg.F, tri_t_mul(exg.F, AS.T))
            row.update(rel_P=_rel(Xo, Xe), eta_orig=_eta(M, Xo, AS.T),
                       eta_exg=_eta(M, Xe, AS.T))
            R, last_step = refined_solve(M, np.hstack([AS[:REF_ROWS].T, AtY[:k]]))
            P_ref, W_ref = R[:, :REF_ROWS], R[:, REF_ROWS:]
            row.update(err_P_orig=_rel(Xo[:, :REF_ROWS], P_ref),
                       err_P_exg=_rel(Xe[:, :REF_ROWS], P_ref),
                       err_W_orig=_rel(orig.W_, W_ref), err_W_exg=_rel(exg.W_, W_ref),
                       ref_last_step=last_step)
            del M, AS, Xo, Xe, R, P_ref
            At[:, k - q:k] = test_nodes.block(u)
            p_o = orig.predict_many(At[:, :k])
            p_e = exg.predict_many(At[:, :k])
            p_r = np.argmax(At[:, :k] @ W_ref, axis=1)
            row.update(acc_orig=float(np.mean(p_o == yte)), acc_exg=float(np.mean(p_e == yte)),
                       acc_ref=float(np.mean(p_r == yte)),
                       disagree=float(np.mean(p_o != p_e)), rel_W=_rel(orig.W_, exg.W_),
                       seconds=round(time.perf_counter() - t_start, 1))
            print(json.dumps(row), flush=True)
            rows_out.append(row)
    return {"config": cfg.name, "stream": stream.label, "seed": seed, "lam": lam,
            "n_train": n, "n_test": int(Xte.shape[0]), "rows_compared": S.stop - S.start,
            "smoke": smoke, "machine": machine_info(), "updates": rows_out}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("config", type=Path)
    ap.add_argument("--lam", type=float, required=True)
    ap.add_argument("--out", type=Path, default=Path("results/ridge_bls"))
    ap.add_argument("--smoke", action="store_true",
                    help="the config's smoke version (sample cap, smaller network)")
    args = ap.parse_args(argv)
    entry = measure(args.config, args.lam, args.smoke)
    path = args.out / "orig_rounding.json"
    runs = json.loads(path.read_text())["runs"] if path.is_file() else []
    runs = [r for r in runs if (r["config"], r["lam"], r.get("smoke")) !=
            (entry["config"], entry["lam"], entry["smoke"])] + [entry]
    args.out.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"runs": runs}, indent=1) + "\n")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
