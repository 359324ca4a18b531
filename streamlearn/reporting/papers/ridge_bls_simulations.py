"""``results/ridge_bls/exg_e_simulations.md``: our Exg-E simulations on the paper's network
set beside the paper's mean and SD over 100 simulations (Zhu, arXiv 1911.04872, Tables
II-III, the "Mean" and "Std" rows of Exg-E).

A cell of Tables II-III is one simulation of ours against the mean of the paper's 100, so
where the paper's own simulations spread by more than the cell tolerance (Exg-E's SD grows
from 0.1-0.4 at u0 to 1.4 at u6 and 4.7 at u11 at λ_8), whether our *distribution* differs
from the paper's takes several simulations. This file gathers every successful Exg-E record
of the committed folders that ran the paper's network (any seed; a seed run in two folders
must give the same numbers, and is counted once), and for each λ with at least three
seeds and each update reports our mean ± SD, the paper's, Welch's t-test of the two means
(the paper's n = 100; at updates fewer than three seeds ran, none), and where each of our
simulations lies in the paper's spread.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from scipy import stats

from streamlearn.errors import UserError
from streamlearn.evaluation import record_archive

__all__ = ["PAPER_NETWORK", "simulations_md"]

#: the protocol parameters of the paper's MNIST network (mnist_full.yaml, to any update)
PAPER_NETWORK = {"windows": 6, "window_nodes": 10, "enhancement": 3000, "update_windows": 1,
                 "update_enhancement": 750, "update_additional": 1250}

#: the fewest seeds at one λ for which the file compares distributions
MIN_SEEDS = 3

#: the paper's number of simulations per cell (Tables II-V: "100 simulations")
PAPER_N = 100


def _paper_network(rec: dict[str, Any]) -> bool:
    params = rec["spec"].get("protocol_params") or {}
    return all(params.get(k) == v for k, v in PAPER_NETWORK.items())


def _exg_e_runs(results_dir: Path) -> dict[float, dict[int, tuple[str, list[float]]]]:
    """``runs[λ][seed] = (folder, [accuracy % per update])`` of every Exg-E record on the
    paper's network; a seed in two folders must agree on the updates both ran."""
    runs: dict[float, dict[int, tuple[str, list[float]]]] = {}
    for folder in sorted(d for d in results_dir.iterdir() if (d / "experiment.json").is_file()):
        for rec in record_archive.store(folder).records():
            if (rec.get("status") != "ok" or rec["spec"]["algorithm"]["name"] != "bls_exg_e"
                    or not _paper_network(rec)):
                continue
            lam = float(rec["spec"]["algorithm"]["params"]["lam"])
            acc = [round(100 * a, 2) for a in rec["curves"]["update_accuracy"]]
            seed = int(rec["seed"])
            seen = runs.setdefault(lam, {}).get(seed)
            if seen is not None:
                k = min(len(acc), len(seen[1]))
                if acc[:k] != seen[1][:k]:
                    raise UserError(f"Exg-E at λ = {lam:g}, seed {seed}: {folder.name} and "
                                    f"{seen[0]} give different accuracies on the same network")
                if len(acc) <= len(seen[1]):
                    continue
            runs[lam][seed] = (folder.name, acc)
    return runs


def _block_of(results_dir: Path) -> dict[float, int]:
    picked = json.loads((results_dir / "calibration.json").read_text())["picked_log2_lambda"]
    block_of: dict[float, int] = {}
    for block, e in enumerate(picked):
        block_of.setdefault(2.0 ** e, block)
    return block_of


def _mean_sd(values: list[float]) -> tuple[float, float]:
    n = len(values)
    mean = sum(values) / n
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1)) if n > 1 else float("nan")
    return mean, sd


def _long_runs_rows(seeds: dict[int, tuple[str, list[float]]], order: list[int], n_up: int,
                    mean_p: list[float], sd_p: list[float]) -> list[str]:
    """Where fewer seeds ran the last update than the first: where the seeds that ran to
    the end lie in the paper's spread (their mean ``z``) at every update, beside the mean
    ``z`` of every seed that ran it, so a reader sees whether the long runs are a typical
    draw of ours at the updates all seeds ran."""
    long = [s for s in order if len(seeds[s][1]) == n_up]
    if len(long) == len(order):
        return []
    names = ", ".join(str(s) for s in long)
    rows = ["", f"Seeds that ran to u{n_up - 1} ({names}), at every update: their mean and "
            "mean z, beside the mean z of every seed that ran the update.", "",
            f"| update | seeds {names}: mean | their mean z | all seeds: mean z (n) |",
            "|---|---|---|---|"]
    for u in range(n_up):
        z_long = [(seeds[s][1][u] - mean_p[u]) / sd_p[u] for s in long]
        z_all = [(seeds[s][1][u] - mean_p[u]) / sd_p[u] for s in order if len(seeds[s][1]) > u]
        mean_long = sum(seeds[s][1][u] for s in long) / len(long)
        rows.append(f"| u{u} | {mean_long:.2f} | {sum(z_long) / len(z_long):+.2f} | "
                    f"{sum(z_all) / len(z_all):+.2f} ({len(z_all)}) |")
    return rows


def simulations_md(results_dir: Path, paper: dict[str, Any]) -> str:
    """The file's text (see the module docstring); ``paper``: the reference values
    (:func:`streamlearn.reporting.papers.ridge_bls.paper_values`)."""
    block_of = _block_of(results_dir)
    runs = _exg_e_runs(results_dir)
    lines = ["# Exg-E over simulations on the paper's network, against the paper's 100", "",
             "Every successful Exg-E record of this folder's experiments that ran the paper's "
             "MNIST network (60 + 3000 nodes, 11 updates of 10 + 750 + 1250), per λ with "
             f"{MIN_SEEDS} or more seeds (each seed redraws every random node). Test accuracy "
             "in %. "
             f"Paper: the Mean and Std rows of Tables II-III (n = {PAPER_N}). Welch's t-test "
             "compares the two means; `z` of a simulation is (ours − paper mean) / paper "
             "SD, where a simulation drawn from the paper's spread lies in [−2, 2] 95 % of "
             "the time (if that spread is normal). Written by `streamlearn tables ridge_bls` "
             "from the committed records.", ""]
    for lam in sorted(runs, reverse=True):
        seeds = runs[lam]
        block = block_of.get(lam)
        if len(seeds) < MIN_SEEDS or block is None:
            continue
        mean_p = paper["blocks"][block]["Exg-E"]
        sd_p = paper["exg_e_std"][block]
        n_up = max(len(acc) for _, acc in seeds.values())
        order = sorted(seeds)
        e = math.log2(lam)
        lines += [f"## λ = 2^{e:.0f} (paper block λ_{block + 1}), seeds "
                  f"{', '.join(str(s) for s in order)}", "",
                  "| update | ours: mean ± SD (n) | paper: mean ± SD (n = 100) | Δ mean | "
                  "Welch t | p (two-sided) | ours with \\|z\\| ≤ 2 | z of ours: min … max |",
                  "|---|---|---|---|---|---|---|---|"]
        for u in range(n_up):
            ours = [seeds[s][1][u] for s in order if len(seeds[s][1]) > u]
            z = [(v - mean_p[u]) / sd_p[u] for v in ours]
            inside = sum(abs(v) <= 2 for v in z)
            m, sd = _mean_sd(ours)
            if len(ours) >= MIN_SEEDS:
                t, p = stats.ttest_ind_from_stats(m, sd, len(ours), mean_p[u], sd_p[u],
                                                  PAPER_N, equal_var=False)
                test = f"{t:+.2f} | {p:.2g}"
            else:  # too few of ours for a test
                test = "— | —"
            spread = f"{m:.2f} ± {sd:.2f}" if len(ours) > 1 else f"{m:.2f}"
            lines.append(f"| u{u} | {spread} ({len(ours)}) | {mean_p[u]:.2f} ± "
                         f"{sd_p[u]:.3f} | {m - mean_p[u]:+.2f} | {test} | "
                         f"{inside} of {len(ours)} | {min(z):+.2f} … {max(z):+.2f} |")
        lines += _long_runs_rows(seeds, order, n_up, mean_p, sd_p)
        lines += ["", "| seed | folder | " + " | ".join(f"u{u}" for u in range(n_up)) + " |",
                  "|---|---|" + "---|" * n_up]
        for s in order:
            folder, acc = seeds[s]
            cells = [f"{acc[u]:.2f}" if u < len(acc) else "" for u in range(n_up)]
            lines.append(f"| {s} | {folder} | " + " | ".join(cells) + " |")
        lines.append("")
    return "\n".join(lines)
