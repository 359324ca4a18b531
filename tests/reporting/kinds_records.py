"""Output directories written by hand with the record blocks of the other evaluation kinds
(windowed, fading, holdout, fold), as the run-record contract of issue 23 has them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from streamlearn.evaluation import records

STREAMS = ["SEA", "Elec"]
ALGOS = ["A", "B"]
SEEDS = [0, 1]
T = [50, 100, 150, 200]
HELD_OUT_T = [0, 100]
METRICS = ["oca", "mcc"]
WINDOW, ALPHA, EVERY, SIZE = 50, 0.99, 100, 20


def run_id(stream: str, algo: str, seed: int, fold: int | None) -> str:
    rid = f"{stream}__{algo}__seed{seed}"
    return rid if fold is None else f"{rid}_fold{fold}"


def _record(stream: str, algo: str, seed: int, fold: int | None, folds: int | None,
            blocks: bool) -> dict[str, Any]:
    # one generator per record, cumulative values drawn first: a directory without the
    # blocks has the same cumulative values as one with them
    rng = np.random.default_rng([STREAMS.index(stream), ALGOS.index(algo), seed,
                                 0 if fold is None else fold + 1])
    curves = {"t": list(T), "oca": rng.uniform(0.5, 1.0, len(T)).tolist(),
              "mcc": rng.uniform(-0.5, 1.0, len(T)).tolist()}
    rec: dict[str, Any] = {
        "schema_version": records.SCHEMA_VERSION, "complete": True,
        "digest": "d-" + run_id(stream, algo, seed, fold),
        "run_id": run_id(stream, algo, seed, fold), "stream": stream, "algorithm": algo,
        "seed": seed, "status": "ok",
        "metrics": {m: curves[m][-1] for m in METRICS}, "curves": curves,
        "timing": {"per_sample_seconds": float(rng.uniform(1e-6, 2e-6)),
                   "per_sample_learn_seconds": None},
    }
    if blocks:
        win = {m: rng.uniform(0.3, 1.0, len(T)).tolist() for m in METRICS}
        win["oca"][0] = None  # a checkpoint without a value (an empty cell in curves.csv)
        fad = {"oca": rng.uniform(0.3, 1.0, len(T)).tolist()}
        held = {m: rng.uniform(0.3, 1.0, len(HELD_OUT_T)).tolist() for m in METRICS}
        rec["windowed"] = {"window": WINDOW, "metrics": {m: win[m][-1] for m in METRICS},
                           "curves": win, "not_supported": []}
        rec["fading"] = {"alpha": ALPHA, "metrics": {"oca": fad["oca"][-1]}, "curves": fad,
                         "not_supported": ["mcc"]}
        rec["holdout"] = {"every": EVERY, "size": SIZE,
                          "metrics": {m: float(np.mean(held[m])) for m in METRICS},
                          "curves": {"t": list(HELD_OUT_T), **held}}
    if fold is not None:
        rec["fold"] = {"method": "cross", "index": fold, "folds": folds}
    return rec


def write_kinds_dir(out: Path, blocks: bool = True, folds: int | None = None,
                    name: str = "kinds") -> Path:
    """An experiment directory of 2 streams × 2 algorithms × 2 seeds (× ``folds`` folds)
    whose records carry the windowed (OCA, MCC), fading (OCA; MCC not supported) and
    held-out (OCA, MCC) blocks when ``blocks``."""
    cfg = {
        "name": name, "protocol": "prequential-classification", "seeds": list(SEEDS),
        "streams": [{"label": s, "max_samples": None} for s in STREAMS],
        "algorithms": [{"label": a} for a in ALGOS],
        "metrics": list(METRICS),
        "outputs": {"tables": ["markdown", "csv"], "plots": ["learning_curve"],
                    "curve_metric": "oca"},
        "reference": {"source": "", "values": {}, "cited": [], "notes": ""},
    }
    runs = []
    for s in STREAMS:
        for a in ALGOS:
            for seed in SEEDS:
                for fold in ([None] if folds is None else range(folds)):
                    rec = _record(s, a, seed, fold, folds, blocks)
                    runs.append({"run_id": rec["run_id"], "digest": rec["digest"],
                                 "stream": s, "algorithm": a, "seed": seed})
                    records.atomic_write_json(records.record_path(out, rec["run_id"]), rec)
    records.atomic_write_json(out / "experiment.json", {
        "schema_version": 1, "name": name, "smoke": False, "not_run": {}, "config": cfg,
        "runs": runs})
    return out
