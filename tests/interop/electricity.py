"""Electricity's first 10,000 samples through ``streamlearn run`` itself (the runner, its
data preparation, ``evaluation.save_predictions``), for the interop tests to compare the
other doors with, sample by sample."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import yaml

from streamlearn.config import load_config
from streamlearn.evaluation.runner import run_experiment
from tests.saved_predictions import load_predictions

N = 10_000
SEED = 11
#: the drift configuration of the Online-BLS paper (configs/online_bls/drift.yaml) on a
#: smaller network (n3 = 100), each with its own fixed seed
LEARNERS: dict[str, dict[str, Any]] = {
    "online_bls_fast": {"lam": 1e-8, "enh_shrink": 0.8, "shrink_source": "box", "n3": 100,
                        "seed": SEED},
    "online_bls_ada_fast": {"mu": 0.99, "regulariser": "refresh", "refresh_every": 100,
                            "lam": 1e-8, "enh_shrink": 0.8, "shrink_source": "box",
                            "n3": 100, "seed": SEED},
}


def electricity_arrays(data_dir: Path) -> tuple[np.ndarray, np.ndarray]:
    """The first ``N`` rows of streamlearn's own Electricity stream (natural order; the
    arrays ``streamlearn run`` prepares for it: float64 features, labels 0/1)."""
    from streamlearn import components

    stream = components.get_stream("electricity")(data_dir=str(data_dir))
    return stream.to_arrays(N)


def streamlearn_run(out: Path, data_dir: Path) -> dict[str, dict[str, Any]]:
    """Run both learners on Electricity with ``streamlearn run``'s code path; per learner,
    the saved ``y_true``/``y_pred`` and the recorded OCA."""
    cfg = {"name": "interop_electricity", "protocol": "prequential-classification",
           "repeats": 1,
           "streams": [{"name": "electricity", "label": "Electricity", "max_samples": N}],
           "algorithms": [{"name": n, "label": n, "params": p} for n, p in LEARNERS.items()],
           "metrics": ["oca"],
           "evaluation": {"save_predictions": True},
           "outputs": {"dir": str(out), "plots": []}}
    path = out.parent / "interop_electricity.yaml"
    path.write_text(yaml.safe_dump(cfg))
    run_experiment(load_config(path), out, data_dir=str(data_dir))
    import json

    found: dict[str, dict[str, Any]] = {}
    for rec_path in sorted((out / "runs").glob("*.json")):
        rec = json.loads(rec_path.read_text())
        assert rec["status"] == "ok", rec.get("error")
        saved = load_predictions(rec_path.with_suffix(".pred.npz"))
        found[rec["algorithm"]] = {"y_true": saved["y_true"], "y_pred": saved["y_pred"],
                                   "oca": rec["metrics"]["oca"]}
    assert set(found) == set(LEARNERS)
    return found
