"""Fast-ONS paper (Civek and Kozat, issue 10), Figs. 1-2, from the saved run records of
configs/fast_ons/ (nothing is re-run here; every number comes from the records or the
saved predictions).

    streamlearn run configs/fast_ons/fig1a_n5e5.yaml   # and fig1a_n1e6, fig1b, fig2a, fig2b
    streamlearn tables fast_ons [results/fast_ons]

Writes into the results folder:

* ``fig1a_time_vs_M.png`` and ``fig1_timing.md``: total learner time of R-ONS and F-ONS vs
  M for both series lengths (mean ± SD over seeds), log-log slopes, the n-doubling ratio;
  ``fig1b_gain.png``: gain_X = (T_X - T_F) / T_X of F-ONS over R-ONS and OGD vs M;
* ``fig2a_mse.png``, ``fig2b_mse.png`` and ``fig2_stability.md``: MSE(t) at every t from the
  saved predictions (log scale), max_t |e_F - e_R| of each R-ONS/F-ONS pair, and the MSE of
  the best fixed linear predictor in hindsight (least squares on the same lag windows).
"""

from __future__ import annotations

import io
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from streamlearn.errors import UserError
from streamlearn.evaluation import record_archive
from streamlearn.metrics.regret import best_fixed_sq_loss, lag_windows
from streamlearn.reporting.figures import save_figure
from streamlearn.reporting.papers.outputs import Output
from streamlearn.reporting.summary import load_runs


def _runs(out_dir: Path) -> list[dict]:
    if not (out_dir / "experiment.json").exists():
        return []
    _, ok, missing, failed = load_runs(out_dir)
    if missing or failed:
        print(f"  {out_dir}: {len(missing)} missing and {len(failed)} failed run(s) left out")
    return ok


def _times(runs: list[dict]) -> dict[tuple[str, int], list[float]]:
    out: dict[tuple[str, int], list[float]] = defaultdict(list)
    for r in runs:
        a = r["spec"]["algorithm"]
        out[(a["name"], int(a["params"]["M"]))].append(float(r["timing"]["total_seconds"]))
    return out


def _mean_sd(v: list[float]) -> tuple[float, float]:
    a = np.asarray(v)
    return float(a.mean()), float(a.std(ddof=1)) if a.size > 1 else 0.0


def _slope(Ms: list[int], ts: list[float]) -> float:
    return float(np.polyfit(np.log(Ms), np.log(ts), 1)[0])


def figure1(res: Path, plt, lines: list[str]) -> None:
    sets = {}
    for tag in ("n5e5", "n1e6"):
        runs = _runs(res / f"fig1a_{tag}")
        if runs:
            sets[tag] = (_times(runs), runs[0]["stream_info"]["n_samples"])
    if sets:
        fig, ax = plt.subplots(figsize=(6, 4))
        lines += ["## Fig. 1a: total time vs M (speech, tiled)", "",
                  "| M | " + " | ".join(f"{a} n={n:,} (s)" for _, (t, n) in sets.items()
                                       for a in ("R-ONS", "F-ONS")) + " |",
                  "|---|" + "---|" * (2 * len(sets))]
        Ms = sorted({M for t, _ in sets.values() for (_, M) in t})
        for M in Ms:
            cells = []
            for t, _ in sets.values():
                for name in ("ons", "fast_ons"):
                    v = t.get((name, M))
                    cells.append("—" if not v else "{:.3f} ± {:.3f}".format(*_mean_sd(v)))
            lines.append(f"| {M} | " + " | ".join(cells) + " |")
        lines.append("")
        for (t, n), style in zip(sets.values(), ("-", "--"), strict=False):
            for name, label in (("ons", "R-ONS"), ("fast_ons", "F-ONS")):
                ms = [M for M in Ms if (name, M) in t]
                mean = [_mean_sd(t[(name, M)])[0] for M in ms]
                sd = [_mean_sd(t[(name, M)])[1] for M in ms]
                ax.errorbar(ms, mean, yerr=sd, fmt="o" + style, ms=3, capsize=2,
                            label=f"{label}, n = {n:,}")
                if len(ms) > 1:
                    lines.append(f"- {label}, n = {n:,}: log-log slope of time vs M "
                                 f"{_slope(ms, mean):.2f}")
        if len(sets) == 2:
            (t1, n1), (t2, n2) = sets.values()
            for name, label in (("ons", "R-ONS"), ("fast_ons", "F-ONS")):
                r = [_mean_sd(t2[(name, M)])[0] / _mean_sd(t1[(name, M)])[0]
                     for M in Ms if (name, M) in t1 and (name, M) in t2]
                lines.append(f"- {label}: time(n = {n2:,}) / time(n = {n1:,}) over the M grid: "
                             f"{min(r):.2f}-{max(r):.2f} (length ratio {n2 / n1:.2f})")
        lines.append("")
        ax.set(xlabel="M (dimension of the feature vector)", ylabel="total time (s)",
               title="Fig. 1a: regular vs fast ONS (speech)")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
        fig.tight_layout()
        save_figure(fig, res / "fig1a_time_vs_M.png", tight=False)
        plt.close(fig)
    runs = _runs(res / "fig1b")
    if runs:
        t = _times(runs)
        Ms = sorted({M for (_, M) in t})
        n = runs[0]["stream_info"]["n_samples"]
        lines += [f"## Fig. 1b: relative time gain of F-ONS (temperature, n = {n:,})", "",
                  "| M | T R-ONS (s) | T F-ONS (s) | T OGD (s) | gain vs R-ONS | gain vs OGD |",
                  "|---|---|---|---|---|---|"]
        gains: dict[str, list[float]] = {"ons": [], "ogd": []}
        ok_M = [M for M in Ms if all((a, M) in t for a in ("ons", "fast_ons", "ogd"))]
        for M in ok_M:
            T = {a: _mean_sd(t[(a, M)])[0] for a in ("ons", "fast_ons", "ogd")}
            for a in gains:
                gains[a].append(100.0 * (T[a] - T["fast_ons"]) / T[a])
            lines.append(f"| {M} | {T['ons']:.3f} | {T['fast_ons']:.4f} | {T['ogd']:.4f} | "
                         f"{gains['ons'][-1]:.1f} % | {gains['ogd'][-1]:.1f} % |")
        lines.append("")
        fig, ax = plt.subplots(figsize=(6, 4))
        ax.plot(ok_M, gains["ons"], "o-", label="w.r.t. regular ONS")
        ax.plot(ok_M, gains["ogd"], "s-", label="w.r.t. OGD")
        ax.axhline(0, color="k", lw=0.6)
        ax.set(xlabel="M", ylabel="relative time gain (%)",
               title="Fig. 1b: gain of fast ONS, (T_X - T_F) / T_X")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
        fig.tight_layout()
        save_figure(fig, res / "fig1b_gain.png", tight=False)
        plt.close(fig)


def _predictions(out_dir: Path, rec: dict) -> dict[str, np.ndarray]:
    """The run's saved predictions, from ``runs/`` or the folder's predictions archive."""
    data = record_archive.read_predictions(out_dir, rec["run_id"])
    if data is None:
        raise UserError(f"{out_dir}: run {rec['run_id']} has no saved predictions; rerun "
                        "the config (it saves them) or restore predictions.tar.xz.")
    with np.load(io.BytesIO(data)) as z:
        return {k: z[k] for k in z.files}


def figure2(res: Path, plt, lines: list[str]) -> None:
    for tag in ("fig2a", "fig2b"):
        out_dir = res / tag
        runs = _runs(out_dir)
        if not runs:
            continue
        preds = {r["algorithm"]: _predictions(out_dir, r) for r in runs}
        info = runs[0]["stream_info"]
        y = next(iter(preds.values()))["y_true"]
        n = y.size
        t = np.arange(1, n + 1)
        M = int(runs[0]["spec"]["algorithm"]["params"]["M"])
        first = next(iter(preds.values()))
        inputs = np.concatenate([first["x0"], y[:-1]])  # x_t, t = 0..n-1
        X = np.ascontiguousarray(lag_windows(inputs, M))
        best_mse = best_fixed_sq_loss(X, y) / n
        persist = np.cumsum((y - inputs) ** 2) / t  # x_{t+1} predicted by x_t
        lines += [f"## {'Fig. 2a' if tag == 'fig2a' else 'Fig. 2b'}: {info['label']}, "
                  f"M = {M}, n = {n:,}", "",
                  f"Best fixed linear predictor in hindsight (least squares on the same "
                  f"windows): MSE {best_mse:.3g}. Persistence (x_t+1 predicted by x_t): "
                  f"MSE(100) {persist[min(99, n - 1)]:.3g}, MSE(500) "
                  f"{persist[min(499, n - 1)]:.3g}, MSE(n) {persist[-1]:.3g}.", "",
                  "| run | MSE(100) | MSE(500) | MSE(n) | regret/T (sq) | max_t abs(e_F - e_R) |",
                  "|---|---|---|---|---|---|"]
        panels = sorted({lab.split(" ", 1)[1] for lab in preds if lab.startswith("R-ONS")})
        fig, axes = plt.subplots(1, max(len(panels), 1), figsize=(5 * max(len(panels), 1), 4),
                                 squeeze=False)
        for ax, setting in zip(axes[0], panels, strict=False):
            for lab, p in preds.items():
                e = p["y_true"] - p["y_pred"]
                if setting not in lab and not (lab.startswith("OGD") and
                                               _same_group(lab, setting)):
                    continue
                ax.plot(t, np.cumsum(e * e) / t, label=lab.split(" ", 1)[0],
                        ls="--" if lab.startswith("F-") else "-")
            ax.axhline(best_mse, color="k", lw=0.6, ls=":", label="best fixed (LS)")
            ax.plot(t, persist, color="grey", lw=0.6, ls="-.", label="persistence")
            ax.set_yscale("log")
            ax.set(xlabel="t", ylabel="MSE(t)", title=setting)
            ax.grid(alpha=0.3)
            ax.legend(fontsize=8)
        for lab, p in preds.items():
            e = p["y_true"] - p["y_pred"]
            mse = np.cumsum(e * e) / t
            gap = ""
            if lab.startswith("F-ONS"):
                twin = preds.get("R-ONS" + lab[len("F-ONS"):])
                if twin is not None:
                    gap = f"{np.max(np.abs(e - (twin['y_true'] - twin['y_pred']))):.2e}"
            rec = next(r for r in runs if r["algorithm"] == lab)
            lines.append(f"| {lab} | {mse[min(99, n - 1)]:.3g} | {mse[min(499, n - 1)]:.3g} | "
                         f"{mse[-1]:.3g} | {rec['metrics'].get('regret_sq', float('nan')):.3g}"
                         f" | {gap or '—'} |")
        lines.append("")
        fig.suptitle(f"{'Fig. 2a' if tag == 'fig2a' else 'Fig. 2b'}: {info['label']}, M = {M}")
        fig.tight_layout()
        save_figure(fig, res / f"{tag}_mse.png", tight=False)
        plt.close(fig)


def _same_group(ogd_label: str, setting: str) -> bool:
    """OGD rows go into the panel of the same group ("paper" or "repro")."""
    return ogd_label.split(" ")[1] == setting.split(" ")[0]


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def fig1_timing(res: Path) -> str:
    """fig1_timing.md (and the Fig. 1a/1b plots)."""
    lines: list[str] = ["# Fast-ONS Fig. 1 from the run records", ""]
    figure1(res, _pyplot(), lines)
    return "\n".join(lines) + "\n"


def fig2_stability(res: Path) -> str:
    """fig2_stability.md (and the Fig. 2a/2b plots)."""
    lines: list[str] = ["# Fast-ONS Fig. 2 from the saved predictions", ""]
    figure2(res, _pyplot(), lines)
    return "\n".join(lines) + "\n"


def outputs(results_dir: Path) -> list[Output]:
    """The files of results/fast_ons/ and the experiment folders each needs."""
    return [Output("fig1_timing.md", fig1_timing, ("fig1a_n5e5", "fig1a_n1e6", "fig1b")),
            Output("fig2_stability.md", fig2_stability, ("fig2a", "fig2b"), predictions=True)]
