"""Fast Exg-E / D-Rdg on the scaled network (exg_e_seeds.yaml) for node-generator variants.

Nodes come from streamlearn's BLSNodeGenerator (optionally monkeypatched: see VARIANTS);
Exg-E (eqs. 26, 30, 22, 32a, 32b, 31, 33) is run in Gram space, so that one pass over the
data serves every lambda:  C^T C = H^T H - (A^T H)^T D - D^T (A^T H) + D^T (A^T A) D.
D-Rdg = solve(A^T A + lam I, A^T Y) on the same Gram.

Written for issue 26 (the cause of Exg-E's steeper fall after u3); its output for 23
variants is committed in results/ridge_bls/exg_e_variants/ (results.jsonl.xz, summary.txt).

usage: python scripts/ridge_exg_e_variants.py VARIANT SEED [SEED ...]
       python scripts/ridge_exg_e_variants.py --summary [l5 l7 ...]
       (appends JSON lines to results/ridge_bls/exg_e_variants/results.jsonl; data from
       $STREAMLEARN_DATA; one BLS thread; about 40 s and 3.2 GiB per seed)
"""
from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import numpy as np
import scipy.linalg
from threadpoolctl import threadpool_limits

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from streamlearn.algorithms.linalg import ichol  # noqa: E402
from streamlearn.config.loading import load_config  # noqa: E402
from streamlearn.evaluation.runs import plan_runs  # noqa: E402
from streamlearn.protocols import node_generator as ng  # noqa: E402
from streamlearn.protocols.preparation import derive_seeds  # noqa: E402

LAMS = {"l3": 2.0**-20, "l4": 2.0**-16, "l5": 2.0**-13, "l6": 2.0**-10, "l7": 2.0**-7,
        "l8": 2.0**-3}
CFG = str(ROOT / "configs/ridge_bls/exg_e_seeds.yaml")
BIAS = ng.BIAS
LAM_C: float | None = None  # variant lamc_<x>: a fixed ridge 2^x in (32a) for every lambda
# variants two_steps / two_steps_rev: each update is applied as Algorithm 1's two UPDATE
# rows, the new window with its own enhancement nodes (row 30) and the additional
# enhancement nodes (row 18), one after the other ("rev": the additional nodes first);
# the exact ridge solutions (D-Rdg) do not depend on it
TWO_STEPS: str | None = None

# ----------------------------------------------------------------------------- variants
_orig_new_enh = ng.BLSNodeGenerator._new_enhancement
_orig_next_block = ng.BLSNodeGenerator.next_block
_orig_orth = ng._orth


def _enh_generic(self, Z, sources, m, *, draw=None, orth=True, bias=True, absmax=False,
                 fixed_scale=None):
    """Re-implementation of _new_enhancement with switches (rows=False path only)."""
    Zs = Z[:, sources]
    V = self._uniform((Zs.shape[1] + 1, m)) if draw is None else draw(self, (Zs.shape[1] + 1, m))
    if orth:
        V = ng._orth(V)
    if not bias:
        V[-1] = 0.0
    T = Zs @ V[:-1] + BIAS * V[-1]
    tmax = float(np.abs(T).max() if absmax else T.max())
    scale = self.schedule.shrink / tmax if tmax > 0 else 1.0
    if fixed_scale is not None:
        scale = fixed_scale(self, scale)
    T *= scale
    np.tanh(T, out=T)
    return ng._EnhancementGroup(sources, V, scale), T


def _added_only(**switches):
    """_new_enhancement with ``switches`` on the added groups; the initial group as now."""
    def f(self, Z, sources, m):
        if not self._blocks:
            return _orig_new_enh(self, Z, sources, m)
        return _enh_generic(self, Z, sources, m, **switches)
    return f


def _all_groups(**switches):
    """_new_enhancement with ``switches`` on every group, the initial one included."""
    def f(self, Z, sources, m):
        return _enh_generic(self, Z, sources, m, **switches)
    return f


# variants that only switch _enh_generic: added groups only (the initial group as now) or
# every group; "unif01_enh" draws "standard uniform" U[0, 1] weights, then orth
SWITCHED = {
    "no_orth_added": lambda: _added_only(orth=False),
    "no_orth_all": lambda: _all_groups(orth=False),
    "unif01_enh": lambda: _all_groups(draw=lambda s, shp: s._rng.random(shp)),
    "absmax": lambda: _all_groups(absmax=True),
    "no_bias_added": lambda: _added_only(bias=False),
}


def patch(variant: str) -> None:
    G = ng.BLSNodeGenerator
    if variant == "current":
        return
    if variant == "orth_always_cols":
        # orth(V) of the tall/wide matrix as columns, i.e. scipy orth without the wide case:
        # for wide V this gives (N+1)x(N+1): impossible, so use QR of V^T instead (rows
        # orthonormal through QR rather than SVD) -- tests SVD-basis vs Gram-Schmidt basis
        def _orth(V):
            if V.shape[0] >= V.shape[1]:
                return np.linalg.qr(V)[0]
            return np.linalg.qr(V.T)[0].T
        ng._orth = _orth
        return
    if variant in SWITCHED:
        G._new_enhancement = SWITCHED[variant]()
        return
    if variant == "init_scale_added":
        # every added group reuses the initial group's shrink factor s/max T_0
        def f(self, Z, sources, m):
            if not self._blocks:
                grp, H = _orig_new_enh(self, Z, sources, m)
                self._scale0 = grp.scale
                return grp, H
            return _enh_generic(self, Z, sources, m, fixed_scale=lambda s, sc: s._scale0)
        G._new_enhancement = f
        return
    if variant == "clip_test_features":
        # test feature nodes clipped to [0,1] (mapminmax apply does NOT clip: unfaithful)
        win_apply = ng._FeatureWindow.apply
        ng._FeatureWindow.apply = lambda self, Xb: np.clip(win_apply(self, Xb), 0.0, 1.0)
        return
    if variant.startswith("shrink_added_"):
        s_add = float(variant.split("_")[-1])
        G._new_enhancement = _added_only(
            fixed_scale=lambda s, sc: sc * s_add / s.schedule.shrink)
        return
    if variant.startswith("lamc_"):
        global LAM_C
        LAM_C = 2.0 ** float(variant.split("_")[1])
        return
    if variant == "binarize_uint8":
        return  # input change in main
    if variant in ("two_steps", "two_steps_rev"):
        global TWO_STEPS
        TWO_STEPS = variant
        return
    if variant == "swap_split" or variant.startswith(("shrink_all_", "split_")):
        return  # schedule change in main
    if variant == "no_related":
        # updates without the 100 'related' enhancement nodes (scaled: +1 window + 150 add.)
        return  # handled by schedule change in main
    if variant == "related_all_features":
        # the 'related' group fed by all feature nodes too
        def f(self, Z, sources, m):
            if self._blocks and sources.start != 0:
                sources = slice(0, sources.stop)
            return _orig_new_enh(self, Z, sources, m)
        G._new_enhancement = f
        return
    if variant == "additional_old_features":
        # the additional group fed by the *old* feature nodes only (before the new window)
        def f(self, Z, sources, m):
            if self._blocks and sources.start == 0:
                f0 = self._Ztr.shape[1] - self.schedule.update_windows * self.schedule.window_nodes
                sources = slice(0, f0)
            return _orig_new_enh(self, Z, sources, m)
        G._new_enhancement = f
        return
    raise SystemExit(f"unknown variant {variant}")


# ----------------------------------------------------------------------------- runs
def run(variant: str, seed: int, Xtr, ytr, Xte, yte, schedule) -> dict:
    node_seed = derive_seeds(seed)["learner"]
    gen = ng.BLSNodeGenerator(schedule, node_seed)
    tnodes = ng.TestNodes(gen, Xte)
    n, c = Xtr.shape[0], int(ytr.max()) + 1
    Y = np.zeros((n, c))
    Y[np.arange(n), ytr] = 1.0
    kmax = schedule.max_nodes
    A = np.empty((n, kmax), order="F")
    At = np.empty((Xte.shape[0], kmax), order="F")
    K = np.empty((kmax, kmax))
    AtY = np.empty((kmax, c))
    st = {name: {} for name in LAMS}
    out = {name: {"exg": [], "rdg": [], "Dnorm": [], "schur_gap": []} for name in LAMS}
    k = 0
    for u in range(schedule.updates + 1):
        H = gen.next_block(Xtr)
        q = H.shape[1]
        Ht = tnodes.block(u)
        # the update's sub-blocks for Exg-E: one block, or Algorithm 1's two UPDATE rows
        cuts = [q]
        if u and TWO_STEPS:
            q1 = schedule.update_windows * schedule.window_nodes + schedule.update_enhancement
            if TWO_STEPS == "two_steps_rev":  # the additional group's columns first
                perm = np.r_[q1:q, 0:q1]
                H, Ht = H[:, perm], Ht[:, perm]
                q1 = q - q1
            cuts = [q1, q]
        A[:, k:k + q] = H
        At[:, k:k + q] = Ht
        Hc = A[:, k:k + q]
        AtH = A[:, :k].T @ Hc if k else None
        HtH = Hc.T @ Hc
        K[k:k + q, k:k + q] = HtH
        if k:
            K[:k, k:k + q] = AtH
            K[k:k + q, :k] = AtH.T
        AtY[k:k + q] = Hc.T @ Y
        k1 = k + q
        for name, lam in LAMS.items():
            s = st[name]
            if k == 0:
                M = K[:k1, :k1].copy()
                M[np.diag_indices(k1)] += lam
                F = ichol(M)
                s["F"] = F
                s["W"] = F @ (F.T @ AtY[:k1])
                out[name]["Dnorm"].append(None)
                out[name]["schur_gap"].append(None)
            else:
                a = k
                for cut in cuts:
                    b_ = k + cut
                    F = s["F"]
                    AtHs = K[:a, a:b_]
                    D = F @ (F.T @ AtHs)
                    CtC = K[a:b_, a:b_] - AtHs.T @ D - D.T @ AtHs + D.T @ (K[:a, :a] @ D)
                    CtC = 0.5 * (CtC + CtC.T)
                    M = CtC.copy()
                    M[np.diag_indices(b_ - a)] += lam if LAM_C is None else LAM_C
                    Gf = ichol(M)
                    T = -(D @ Gf)
                    b = T.T @ AtY[:a] + Gf.T @ AtY[a:b_]
                    W = np.vstack([s["W"] + T @ b, Gf @ b])
                    Fn = np.zeros((b_, b_))
                    Fn[:a, :a] = F
                    Fn[:a, a:] = T
                    Fn[a:, a:] = Gf
                    s["F"], s["W"] = Fn, W
                    a = b_
                # diagnostics: ||D||_F, and lam*||D^T D||_2 / lambda_min(CtC + lam I)
                DtD = D.T @ D
                ev = np.linalg.eigvalsh(M)
                out[name]["Dnorm"].append(float(np.linalg.norm(D)))
                out[name]["schur_gap"].append(float(lam * np.linalg.eigvalsh(DtD)[-1] / ev[0]))
            pred = np.argmax(At[:, :k1] @ s["W"], axis=1)
            out[name]["exg"].append(float(np.mean(pred == yte) * 100))
            Mr = K[:k1, :k1].copy()
            Mr[np.diag_indices(k1)] += lam
            Wr = scipy.linalg.solve(Mr, AtY[:k1], assume_a="pos")
            pr = np.argmax(At[:, :k1] @ Wr, axis=1)
            out[name]["rdg"].append(float(np.mean(pr == yte) * 100))
        k = k1
    return out


def summary(lams: list[str]) -> None:
    """Per variant and lambda: mean Exg-E u0, u3, u6 over seeds, the fall u3 - u6 per seed,
    D-Rdg's u6, ||D||_F at u6 (eq. 30), from results.jsonl(.xz) (summary.txt is this)."""
    import collections
    import lzma

    path = ROOT / "results/ridge_bls/exg_e_variants/results.jsonl"
    text = path.read_text() if path.exists() else lzma.open(
        path.with_suffix(".jsonl.xz"), "rt").read()
    by: dict = collections.OrderedDict()
    for line in text.splitlines():
        r = json.loads(line)
        by.setdefault(r["variant"], {})[r["seed"]] = r["res"]
    for lam in lams:
        print(f"\n== {lam}: variant, seeds | Exg-E u0 u3 u6 (mean) | fall u3-u6 per seed "
              "| D-Rdg u6 | D-Rdg - Exg-E u6 | ||D||_F u6")
        for v, d in by.items():
            seeds = sorted(d)
            e = np.array([d[s][lam]["exg"] for s in seeds])
            r = np.array([d[s][lam]["rdg"] for s in seeds])
            falls = e[:, 3] - e[:, 6]
            dn = np.mean([d[s][lam]["Dnorm"][6] for s in seeds])
            print(f"{v:24s} {len(seeds):2d} {e[:, 0].mean():6.2f} {e[:, 3].mean():6.2f} "
                  f"{e[:, 6].mean():6.2f} | " + " ".join(f"{x:+.2f}" for x in falls)
                  + f" (mean {falls.mean():+.2f}) | {r[:, 6].mean():6.2f} | "
                  f"{(r[:, 6] - e[:, 6]).mean():5.2f} | {dn:7.1f}")


def main() -> None:
    if sys.argv[1] == "--summary":
        summary(sys.argv[2:] or ["l4", "l5", "l6", "l7", "l8"])
        return
    variant = sys.argv[1]
    seeds = [int(s) for s in sys.argv[2:]]
    patch(variant)
    cfg = load_config(CFG)
    spec = plan_runs(cfg)[0]
    pp = dict(spec.protocol_params)
    if variant == "no_related":
        pp["update_enhancement"] = 0
    if variant == "swap_split":
        pp["update_enhancement"], pp["update_additional"] = (pp["update_additional"],
                                                             pp["update_enhancement"])
    if variant.startswith("split_"):
        _, a, b = variant.split("_")
        pp["update_enhancement"], pp["update_additional"] = int(a), int(b)
    if variant.startswith("shrink_all_"):
        pp["shrink"] = float(variant.split("_")[-1])
    protocol = ng  # noqa
    from streamlearn import components
    proto = components.get_protocol(spec.protocol)(**pp)
    prepared = proto.prepare(spec.stream, 0, os.environ.get("STREAMLEARN_DATA"))
    Xtr, ytr = prepared.X, prepared.y
    Xte, yte = prepared.extra["X_test"], prepared.extra["y_test"]
    if variant == "binarize_uint8":
        # [16]'s demo divides the stored uint8 pixels by 255 in uint8 arithmetic,
        # double(train_x/255), which rounds each pixel to 0 (< 128) or 1 (>= 128)
        Xtr = (np.rint(Xtr * 255.0) >= 128.0).astype(np.float64)
        Xte = (np.rint(Xte * 255.0) >= 128.0).astype(np.float64)
    schedule = proto.schedule()
    # memory: keep only the z-scored training inputs; the generator gets a placeholder
    Xb_cache = ng.row_zscore(Xtr)
    _rz = ng.row_zscore
    ng.row_zscore = lambda X: Xb_cache if X.shape[1] == 0 else _rz(X)
    Xtr = np.empty((Xb_cache.shape[0], 0))
    del prepared
    for seed in seeds:
        t0 = time.time()
        with threadpool_limits(1):
            out = run(variant, seed, Xtr, ytr, Xte, yte, schedule)
        rec = {"variant": variant, "seed": seed, "secs": round(time.time() - t0, 1),
               "res": out}
        with open(ROOT / "results/ridge_bls/exg_e_variants/results.jsonl", "a") as fh:
            fh.write(json.dumps(rec) + "\n")
        for name in ("l5", "l7"):
            e, r = out[name]["exg"], out[name]["rdg"]
            print(f"{variant:22s} s{seed} {name} exg " + " ".join(f"{x:.2f}" for x in e)
                  + f" | u3-u6 {e[3]-e[6]:+.2f} | rdg u6 {r[6]:.2f}  ({rec['secs']} s)",
                  flush=True)


if __name__ == "__main__":
    main()
