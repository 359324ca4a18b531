"""Ridge-BLS paper (Zhu et al., issue 12): the per-update tables (Tables II-III, VI, Fig. 1)
and the table of the λ calibration, from saved results.

    streamlearn tables ridge_bls [results/ridge_bls] [--only mnist_tables/tables.md]

``tables.md`` of an ``incremental-nodes`` experiment folder, from its run records:
accuracy per update for each λ and algorithm (mean over seeds; ``NA`` from the first
update at which any run's factorisation failed, with the failure count), the paper's
values for the same λ block beside, Table VI (additional and accumulated training time per
update, Chol-1's speedups over Orig. and Exg-E) and Fig. 1's maxima.

``calibration.md``, from ``calibration.json``: the test accuracy of the ridge solution over
the λ grid and the eight λ blocks picked (spec §4.1). The measurement itself, which runs
D-Rdg on MNIST, is an experiment: ``scripts/ridge_bls_calibrate.py``.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np

from streamlearn.errors import UserError
from streamlearn.evaluation import record_archive
from streamlearn.reporting.figures import save_figure
from streamlearn.reporting.papers.outputs import Output
from streamlearn.reporting.papers.ridge_bls_simulations import simulations_md

#: MNIST u0 accuracies of the paper's eight λ blocks (Tables II-III), spec §4.1.
PAPER_U0 = (98.30, 98.30, 98.22, 97.98, 97.47, 96.65, 95.44, 93.64)
PAPER_FILE = Path(__file__).parents[2] / "reference" / "ridge_bls_paper.yaml"
ALGOS = ("Orig.", "Exg-E", "Chol-1", "Chol-2", "R-Inv", "D-Rdg")


#: the paper's MNIST network (Tables II-III): initial nodes and nodes per update
PAPER_K0, PAPER_Q = 3060, 2010


def paper_values() -> dict[str, Any]:
    """The seed's MNIST Tables II-III means (``blocks[i][algo] = [u0..u11]``) and Table VI."""
    import yaml

    return yaml.safe_load(PAPER_FILE.read_text())


# --------------------------------------------------------------------------- calibration

#: the command of the calibration experiment, quoted in calibration.md
CALIBRATE_COMMAND = "python scripts/ridge_bls_calibrate.py"


def calibration_md(result: dict[str, Any]) -> str:
    """calibration.md from the calibration's result (the content of calibration.json:
    grid, accuracies per seed and their mean, the picked blocks and the rule that picked
    them)."""
    exponents = list(result["grid_log2_lambda"])
    mean = np.asarray(result["accuracy_mean"])
    picked = result["picked_log2_lambda"]
    seeds = result["seeds"]
    lines = [
        "# λ calibration (MNIST, initial 60/3000 network, D-Rdg)", "",
        f"Regenerate: `{CALIBRATE_COMMAND} --seeds "
        + " ".join(map(str, seeds)) + "` "
        f"(whole training set 60,000 / test set 10,000, {len(seeds)} simulation(s), "
        f"{result['seconds']:.0f} s on this machine, 1 BLAS thread).", "",
        "Rule: " + result["rule"], "",
        "| log2 λ | test acc. (%), mean | " + " | ".join(f"seed {s}" for s in seeds) + " |",
        "|---" * (2 + len(seeds)) + "|",
    ]
    for i, e in enumerate(exponents):
        lines.append(f"| {e} | {mean[i]:.2f} | " + " | ".join(
            f"{row[i]:.2f}" for row in result["accuracy_per_seed"]) + " |")
    lines += ["", "| block | paper u0 (%) | paper drop from λ_1 | picked log2 λ | our u0 (%) "
              "| our drop |", "|---|---|---|---|---|---|"]
    for b, p in enumerate(PAPER_U0):
        a = result["picked_accuracy"][b]
        lines.append(f"| λ_{b + 1} | {p:.2f} | {PAPER_U0[0] - p:.2f} | {picked[b]} | "
                     f"{a:.2f} | {result['picked_accuracy'][0] - a:.2f} |")
    return "\n".join(lines) + "\n"


def calibration_md_from_json(results_dir: Path) -> str:
    """calibration.md of ``results_dir/calibration.json``."""
    return calibration_md(json.loads((results_dir / "calibration.json").read_text()))


# --------------------------------------------------------------------------- tables


def _records(results: Path) -> list[dict[str, Any]]:
    """The successful records of an experiment folder (``runs/`` or its archive)."""
    return [r for r in record_archive.store(results).records() if r.get("status") == "ok"]


def _algo_of(rec: dict[str, Any]) -> str:
    sweep = rec["spec"]["algorithm"].get("sweep") or {}
    return str(sweep.get("group", rec["algorithm"])).split(" ")[0]


def _lam(rec: dict[str, Any]) -> float:
    return float(rec["spec"]["algorithm"]["params"]["lam"])


def _lam_text(lam: float) -> str:
    e = math.log2(lam)
    return f"2^{e:.0f}" if abs(e - round(e)) < 1e-9 else f"{lam:g}"


def tables(results: Path, timing_lam: float | None = None) -> Path:
    """Write ``results/tables.md`` (and Fig. 1 when there are several λ); its path."""
    out = results / "tables.md"
    out.write_text(tables_md(results, timing_lam))
    return out


def tables_md(results: Path, timing_lam: float | None = None) -> str:
    """tables.md of the experiment folder ``results``: the per-update accuracy beside the
    paper's, Fig. 1's maxima and Table VI; writes Fig. 1 beside it when there are several λ.
    ``timing_lam``: the λ of Table VI (default: the mean over every λ at which Chol-1 never
    failed)."""
    recs = _records(results)
    if not recs:
        raise UserError(f"no complete records in {record_archive.store(results).origin}")
    paper = paper_values()
    lams = sorted({_lam(r) for r in recs})
    by: dict[tuple[float, str], list[dict[str, Any]]] = {}
    for r in recs:
        by.setdefault((_lam(r), _algo_of(r)), []).append(r)
    algos = [a for a in ALGOS if any(k[1] == a for k in by)]
    nodes = recs[0]["updates"]["nodes"]
    U = len(nodes) - 1
    cal_path = results.parent / "calibration.json"
    block_of: dict[float, int] = {}
    if cal_path.exists():
        picked = json.loads(cal_path.read_text())["picked_log2_lambda"]
        for block, e in enumerate(picked):
            block_of.setdefault(2.0 ** e, block)
    exp = json.loads((results / "experiment.json").read_text())
    paper_size = nodes == [PAPER_K0 + PAPER_Q * u for u in range(U + 1)]
    compare = ("the paper's network (3060 + 2010 per update), so levels compare too (the "
               "paper averages 100 simulations)." if paper_size else
               "the paper's network is larger (3060 + 2010 per update), so compare "
               "shapes, not levels.")
    lines = [f"# Ridge-BLS, MNIST: test accuracy per update ({results.name})", "",
             f"Config `{exp.get('config_path')}`; seeds {exp['config']['seeds']}; "
             f"nodes per update {nodes}. Mean test accuracy (%) over seeds; `NA (f/n)`: "
             "the factorisation failed at or before this update in f of n runs. Paper: the "
             "seed's block with the same λ (calibration.md), same update index — "
             + compare, ""]
    for lam in lams:
        b = block_of.get(lam)
        title = f"## λ = {_lam_text(lam)}" + (f" (paper block λ_{b + 1})" if b is not None
                                              else "")
        lines += [title, "", "| algorithm | " + " | ".join(f"u{u}" for u in range(U + 1))
                  + " |", "|---" * (U + 2) + "|"]
        for a in algos:
            runs = by.get((lam, a), [])
            if not runs:
                continue
            acc = np.array([[np.nan if v is None else v for v in r["updates"]["accuracy"]]
                            for r in runs], dtype=float)
            fails = np.array([r["updates"]["failed"] for r in runs]).sum(axis=0)
            cells = []
            for u in range(U + 1):
                if fails[u]:
                    cells.append(f"NA ({fails[u]}/{len(runs)})")
                else:
                    cells.append(f"{100 * acc[:, u].mean():.2f}")
            lines.append(f"| {a} | " + " | ".join(cells) + " |")
            if b is not None and a in paper["blocks"][b]:
                pv = paper["blocks"][b][a][: U + 1]
                lines.append(f"| *paper {a}* | " + " | ".join(
                    "NA" if v is None else f"*{v:.2f}*" for v in pv) + " |")
        lines.append("")
    # Fig. 1: maximum accuracy vs λ
    lines += [f"## Fig. 1: maximum test accuracy over u0..u{U} vs λ", "",
              "| λ | " + " | ".join(algos) + " |", "|---" * (len(algos) + 1) + "|"]
    for lam in lams:
        row = []
        for a in algos:
            runs = by.get((lam, a), [])
            if not runs:
                row.append("")
                continue
            acc = np.array([[np.nan if v is None else v for v in r["updates"]["accuracy"]]
                            for r in runs], dtype=float).mean(axis=0)
            row.append(f"{100 * np.nanmax(acc):.2f} (u{int(np.nanargmax(acc))})"
                       if np.isfinite(acc).any() else "NA")
        lines.append(f"| {_lam_text(lam)} | " + " | ".join(row) + " |")
    lines.append("")
    lines += _memory_section(recs, lams, algos, by)
    # Table VI: timing
    ok = [lam for lam in lams
          if all(not any(r["updates"]["failed"]) for r in by.get((lam, "Chol-1"), []))]
    if not ok:
        lines.append("Chol-1 failed at every λ here: no timing table (Table VI needs all "
                     "updates of Chol-1).")
        return _finish(results, lines, lams, algos, by)
    pool = [timing_lam] if timing_lam is not None else ok
    where = (f"λ = {_lam_text(pool[0])}" if len(pool) == 1 else
             f"mean over the {len(pool)} λ values at which Chol-1 never failed "
             f"({', '.join(_lam_text(x) for x in pool)}; the flops do not depend on λ)")
    lines += ["## Table VI: training time per update (s)", "",
              f"Weight update alone (node generation excluded; it is the same for every "
              f"algorithm); u0 = the whole initial training; {where}, and over seeds. "
              "S(·) = time(·)/time(Chol-1). One BLAS thread per run, on a 2-core machine "
              "shared with other jobs: individual times are noisy.", ""]
    pooled = {a: [r for lam in pool for r in by.get((lam, a), [])] for a in algos}
    tim: dict[str, np.ndarray] = {}
    for a in algos:
        if pooled[a]:
            tim[a] = np.mean([r["timing"]["update_seconds"] for r in pooled[a]], axis=0)
    order = [a for a in ("Orig.", "R-Inv", "Exg-E", "Chol-2", "Chol-1", "D-Rdg") if a in tim]
    head = (["u", "nodes"] + [f"add. {a}" for a in order] + ["S(Orig.)", "S(Exg-E)"]
            + [f"acc. {a}" for a in order] + ["S(Orig.)", "S(Exg-E)", "paper S(Orig.) acc.",
                                              "paper S(Exg-E) acc."])
    lines += ["| " + " | ".join(head) + " |", "|---" * len(head) + "|"]
    cum = {a: np.cumsum(t) for a, t in tim.items()}
    t6 = paper.get("table6", [])
    for u in range(U + 1):
        row = [f"u{u}", str(nodes[u])] + [f"{tim[a][u]:.3f}" for a in order]
        ch = tim.get("Chol-1")
        for ref in ("Orig.", "Exg-E"):
            row.append(f"{tim[ref][u] / ch[u]:.2f}" if ch is not None and ref in tim else "")
        row += [f"{cum[a][u]:.3f}" for a in order]
        cch = cum.get("Chol-1")
        for ref in ("Orig.", "Exg-E"):
            row.append(f"{cum[ref][u] / cch[u]:.2f}" if cch is not None and ref in cum else "")
        if u < len(t6):
            row += [f"{t6[u]['acc_S_orig']:.2f}",
                    "—" if t6[u]["acc_S_exge"] is None else f"{t6[u]['acc_S_exge']:.2f}"]
        else:
            row += ["", ""]
        lines.append("| " + " | ".join(row) + " |")
    step = {a: np.mean([r["timing"]["step_seconds"] for r in pooled[a]], axis=0)
            for a in order}
    cstep = {a: np.cumsum(t) for a, t in step.items()}
    lines += ["", "Whole step as in [16]'s code (node generation + weight update), "
              "accumulated (s), with Chol-1's speedups:", "",
              "| u | " + " | ".join(f"acc. {a}" for a in order)
              + " | S(Orig.) | S(Exg-E) |", "|---" * (len(order) + 3) + "|"]
    for u in range(U + 1):
        row = [f"u{u}"] + [f"{cstep[a][u]:.2f}" for a in order]
        for ref in ("Orig.", "Exg-E"):
            row.append(f"{cstep[ref][u] / cstep['Chol-1'][u]:.2f}"
                       if "Chol-1" in cstep and ref in cstep else "")
        lines.append("| " + " | ".join(row) + " |")
    lines += ["", "Peak memory traced per run (max over updates, MiB; node matrices "
              f"train+test: {recs[0]['timing']['node_matrix_bytes'] / 2**20:.0f} MiB):", "",
              "| algorithm | peak (MiB) | learner state at the end (MiB) |", "|---|---|---|"]
    for a in order:
        runs = pooled[a]
        peak = max(max(r["timing"]["peak_traced_bytes"]) for r in runs) / 2**20
        state = max(r["timing"]["state_bytes"][-1] for r in runs) / 2**20
        lines.append(f"| {a} | {peak:.0f} | {state:.0f} |")
    return _finish(results, lines, lams, algos, by)


def _memory_section(recs: list[dict[str, Any]], lams: list[float], algos: list[str],
                    by: dict[tuple[float, str], list[dict[str, Any]]]) -> list[str]:
    """Each run's process peak (``ru_maxrss``), how the node matrix was stored and the
    training time (node generation + weight updates), max over seeds."""
    if not all("run_peak_rss_bytes" in (r.get("memory") or {}) for r in recs):
        return []  # records made before runs measured their own peak
    lines = ["## Peak memory and time per run", "",
             "The run's peak resident memory (the process's `VmHWM`, reset as the run "
             "starts: the interpreter and the loaded data included), the node matrix held "
             "whole (`memory`) or regenerated in row blocks (`rows`), training time (node "
             "generation + weight updates); max over seeds.",
             "", "| λ | algorithm | node matrix | peak RSS (GiB) | training (s) |",
             "|---|---|---|---|---|"]
    for lam in lams:
        for a in algos:
            runs = by.get((lam, a), [])
            if not runs:
                continue
            peak = max(r["memory"]["run_peak_rss_bytes"] for r in runs) / 2**30
            mode = "/".join(sorted({str(r.get("node_matrix", "memory")) for r in runs}))
            secs = max(r["timing"]["total_seconds"] for r in runs)
            lines.append(f"| {_lam_text(lam)} | {a} | {mode} | {peak:.2f} | {secs:.0f} |")
    return [*lines, ""]


def _finish(results: Path, lines: list[str], lams: list[float], algos: list[str],
            by: dict[tuple[float, str], list[dict[str, Any]]]) -> str:
    if len(lams) > 1:
        _fig1(results, lams, algos, by)
    return "\n".join(lines) + "\n"


def _fig1(results: Path, lams: list[float], algos: list[str],
          by: dict[tuple[float, str], list[dict[str, Any]]]) -> Path:
    """Fig. 1.a: maximum (over updates) of the mean test accuracy vs λ, one curve per
    algorithm (NA updates left out)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    markers = dict(zip(ALGOS, "os^vDx", strict=True))
    for a in algos:
        xs, ys = [], []
        for lam in lams:
            runs = by.get((lam, a), [])
            if not runs:
                continue
            acc = np.array([[np.nan if v is None else v for v in r["updates"]["accuracy"]]
                            for r in runs], dtype=float).mean(axis=0)
            if np.isfinite(acc).any():
                xs.append(math.log2(lam))
                ys.append(100 * np.nanmax(acc))
        ax.plot(xs, ys, marker=markers.get(a, "o"), label=a, alpha=0.8)
    ax.set_xlabel("log2 λ")
    ax.set_ylabel("maximum test accuracy over updates (%)")
    ax.set_title(f"Ridge-BLS Fig. 1.a (scaled): MNIST, {results.name}")
    ax.grid(alpha=0.3)
    ax.legend()
    path = results / "fig1_max_accuracy_vs_lambda.png"
    fig.tight_layout()
    save_figure(fig, path, tight=False)
    plt.close(fig)
    return path


#: the experiment whose presence adds exg_e_simulations.md (Exg-E over seeds at λ_8)
SIMULATIONS_FOLDER = "exg_e_seeds_full_lam8"


def outputs(results_dir: Path, timing_lam: float | None = None) -> list[Output]:
    """The files of results/ridge_bls/: calibration.md (from calibration.json) and the
    tables.md of each experiment folder in it; of an experiment folder itself, its
    tables.md."""
    def table_of(name: str) -> Output:
        return Output(f"{name}/tables.md" if name != "." else "tables.md",
                      lambda root: tables_md(root / name, timing_lam), (name,))

    if (results_dir / "experiment.json").is_file():
        return [table_of(".")]
    experiments = sorted(d.name for d in results_dir.glob("*")
                         if (d / "experiment.json").is_file())
    law = ([Output("memory_law.md", memory_law_md, ("memory_law.json",))]
           if (results_dir / "memory_law.json").is_file() else [])
    rounding = ([Output("orig_rounding.md", orig_rounding_md, ("orig_rounding.json",))]
                if (results_dir / "orig_rounding.json").is_file() else [])
    sims = ([Output("exg_e_simulations.md", lambda root: simulations_md(root, paper_values()),
                    ("calibration.json", SIMULATIONS_FOLDER))]
            if SIMULATIONS_FOLDER in experiments else [])
    return [Output("calibration.md", calibration_md_from_json, ("calibration.json",)),
            *law, *rounding, *sims, *(table_of(name) for name in experiments)]


# ------------------------------------------------------------------ memory law

#: The algorithms of the memory law (scripts/ridge_bls_memory_law.py runs them), by name.
LAW_ALGOS = {"bls_chol1": "Chol-1", "bls_orig": "Orig."}


def _memory_law_fit(rows: list[dict[str, Any]]) -> str:
    """Least-squares fits of the row-block peaks (GiB): ``a + b l + c k²`` for Chol-1 (the
    ridge family's state is ``k × k``) and ``a + b l + c l k`` for Orig. (the Greville
    family keeps its ``l × k`` inverse), with the largest residual; ``c`` in bytes per
    matrix entry (8 = one float64 matrix of that shape)."""
    lines = []
    for algo, term, label in (("bls_chol1", lambda r: r["k"] ** 2, "k²"),
                              ("bls_orig", lambda r: r["n_train"] * r["k"], "l·k")):
        sel = [r for r in rows if r["algorithm"] == algo and r["mode"] == "rows"]
        X = np.array([[1.0, r["n_train"], term(r)] for r in sel])
        y = np.array([r["peak_rss_bytes"] for r in sel], dtype=float)
        (a, b, c), *_ = np.linalg.lstsq(X, y, rcond=None)
        res = np.abs(y - X @ [a, b, c]).max() / 2**30
        lines.append(f"* {LAW_ALGOS[algo]}, rows: peak ≈ {a / 2**30:.2f} GiB + "
                     f"{b * 10_000 / 2**30:.2f} GiB per 10,000 training samples + "
                     f"{c:.1f} bytes × {label} (largest residual {res:.2f} GiB over "
                     f"{len(sel)} runs)")
    return "\n".join(lines)


def _memory_law_table(rows: list[dict[str, Any]]) -> str:
    head = ("| algorithm | node matrix | training samples l | nodes k | peak RSS (GiB) | "
            "l·k·8 bytes (GiB) | k²·8 bytes (GiB) | run (s) |\n"
            "|---|---|---:|---:|---:|---:|---:|---:|")
    body = [f"| {LAW_ALGOS[r['algorithm']]} | {r['mode']} | {r['n_train']:,} | {r['k']:,} | "
            f"{r['peak_rss_bytes'] / 2**30:.2f} | {8 * r['n_train'] * r['k'] / 2**30:.2f} | "
            f"{8 * r['k'] ** 2 / 2**30:.2f} | {r['seconds']:.0f} |"
            for r in sorted(rows, key=lambda r: (r["algorithm"], r["mode"], r["k"],
                                                 r["n_train"]))]
    return "\n".join([head, *body])


def memory_law_md(results_dir: Path) -> str:
    """memory_law.md from ``memory_law.json`` (``scripts/ridge_bls_memory_law.py``): each
    run's peak resident memory against training samples ``l`` and nodes ``k``, and the
    fitted law of each family (issue 26, item 2)."""
    data = json.loads((results_dir / "memory_law.json").read_text())
    rows = data["runs"]
    return "\n".join([
        "# Peak memory of `incremental-nodes` against samples and nodes", "",
        "Generated by `python scripts/ridge_bls_memory_law.py` from `memory_law.json` "
        "(one `streamlearn run` process per row; peak RSS = the record's "
        "`run_peak_rss_bytes`: the process's resident high-water mark from the run's "
        "start, the interpreter and the loaded MNIST arrays included). "
        f"MNIST, λ = {_lam_text(data['lam'])}, one BLS thread.", "",
        _memory_law_table(rows), "", _memory_law_fit(rows), ""])


# ------------------------------------------------------------------ Orig.'s rounding


def _orig_rounding_table(run: dict[str, Any]) -> str:
    head = ("| update | nodes | Orig. acc. | Exg-E acc. | reference acc. | predictions "
            "that differ | C: Orig. vs Exg-E | P error: Orig. | P error: Exg-E | "
            "W error: Orig. | W error: Exg-E | backward error: Orig. | backward error: "
            "Exg-E | ‖C‖/‖H‖ | λ_min(CᵀC)/λ |\n|" + "---:|" * 15)

    def e(r: dict[str, Any], key: str) -> str:
        return f"{r[key]:.1e}" if key in r else "–"

    body = [f"| u{r['update']} | {r['nodes']:,} | {100 * r['acc_orig']:.2f} | "
            f"{100 * r['acc_exg']:.2f} | {100 * r['acc_ref']:.2f} | "
            f"{100 * r['disagree']:.2f} % | {e(r, 'rel_C')} | {e(r, 'err_P_orig')} | "
            f"{e(r, 'err_P_exg')} | {e(r, 'err_W_orig')} | {e(r, 'err_W_exg')} | "
            f"{e(r, 'eta_orig')} | {e(r, 'eta_exg')} | "
            + (f"{r['c_over_h']:.1e} | {r['c_sigma_min_sq'] / run['lam']:.2g} |"
               if "c_over_h" in r else "– | – |")
            for r in run["updates"]]
    return "\n".join([head, *body])


def orig_rounding_md(results_dir: Path) -> str:
    """orig_rounding.md from ``orig_rounding.json`` (``scripts/ridge_bls_orig_rounding.py``):
    Orig. (Algs. 2-3) and Exg-E (Algs. 4-5) side by side on one network, each state's
    error against an accurately solved reference ``M_k⁻¹ A_kᵀ`` (issue 26: the cause of
    Orig.'s fall at the paper's size)."""
    data = json.loads((results_dir / "orig_rounding.json").read_text())
    parts = [
        "# Orig. against Exg-E, update by update: the rounding in Orig.'s Pᵀ", "",
        "Generated by `python scripts/ridge_bls_orig_rounding.py CONFIG --lam λ` from "
        "`orig_rounding.json` (the registered learners side by side in one process on the "
        "network the config's protocol draws for its first stream and seed, one BLAS "
        "thread). Both represent `P_k = M_k⁻¹ A_kᵀ` in exact arithmetic "
        "(the script's docstring gives `M_k`); *P error* and *W error* are each state's "
        "relative error against `M_k⁻¹ A_Sᵀ` (the first 8 training rows) and "
        "`M_k⁻¹ A_kᵀ Y`, solved by LU with iterative refinement in extended precision "
        "(*reference acc.*: the test accuracy of that `W`); *backward error*: "
        "`‖M_k X − A_Sᵀ‖ / (‖M_k‖ ‖X‖ + ‖A_Sᵀ‖)` on the first 2,048 rows; *C: Orig. vs "
        "Exg-E*: the update's residual `C = H − A_k D` (22) of Orig. relative to Exg-E's; "
        "the last two columns: how little of the new nodes `H` lies outside the old ones, "
        "and how far (21a)'s `(CᵀC + λI)⁻¹` can magnify an error in `C`.", ""]
    for run in data["runs"]:
        if run.get("smoke"):
            continue
        parts += [f"## {run['config']}, {run['stream']}, seed {run['seed']}, "
                  f"λ = {_lam_text(run['lam'])}", "",
                  f"{run['n_train']:,} training and {run['n_test']:,} test samples; "
                  f"{run['updates'][-1]['seconds'] / 60:.0f} minutes on "
                  f"{run['machine'].get('cpu', '?')}.", "",
                  _orig_rounding_table(run), ""]
    return "\n".join(parts)
