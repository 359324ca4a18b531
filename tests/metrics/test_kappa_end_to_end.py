"""End to end: ``streamlearn run`` with the kappa family, a window and a fading factor,
and the reference learners; every recorded final and curve (cumulative, windowed, faded)
equals an independent computation on the saved predictions (``runs/*.pred.npz``), and
kappa_m of ``majority_class`` and kappa_t of ``no_change`` are exactly 0."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest
import yaml
from scipy.signal import lfilter
from sklearn.metrics import cohen_kappa_score

from streamlearn.config import load_config
from streamlearn.evaluation.runner import run_experiment
from tests.reference.reference_rules import kappa_against, majority_class_loop, no_change_loop
from tests.saved_predictions import load_predictions

WINDOW, ALPHA = 200, 0.99
METRICS = ["oca", "kappa", "kappa_m", "kappa_t"]


def _run(tmp_path: Path, stream: dict, data_dir: str | None = None) -> list[dict]:
    cfg = {"name": "kappa_e2e", "protocol": "prequential-classification", "repeats": 1,
           "streams": [stream],
           "algorithms": [{"name": "majority_class", "label": "Majority"},
                          {"name": "no_change", "label": "No change"},
                          {"name": "hoeffding_tree", "label": "HT"}],
           "metrics": METRICS,
           "evaluation": {"checkpoints": 25, "window": WINDOW, "fading": ALPHA,
                          "save_predictions": True},
           "outputs": {"dir": str(tmp_path / "out"), "plots": []}}
    path = tmp_path / "cfg.yaml"
    path.write_text(yaml.safe_dump(cfg))
    run_experiment(load_config(path), tmp_path / "out", data_dir=data_dir)
    runs = tmp_path / "out" / "runs"
    records = [json.loads(p.read_text()) for p in sorted(runs.glob("*.json"))]
    assert len(records) == 3 and all(r["status"] == "ok" for r in records)
    return records


def _cumulative(name: str, y, p, t: int, refs) -> float:
    if name == "oca":
        return float(np.mean(y[:t] == p[:t]))
    if name == "kappa":
        if np.unique(np.r_[y[:t], p[:t]]).size == 1:
            return 0.0
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return float(cohen_kappa_score(y[:t], p[:t]))
    return kappa_against(y[:t], p[:t], refs[name][:t])


def _faded(e: np.ndarray) -> np.ndarray:
    return lfilter([1.0], [1.0, -ALPHA], e.astype(np.float64), axis=0)


def _faded_curve(name: str, y, p, c: int, refs) -> np.ndarray:
    onehot = np.eye(c)
    T, P = _faded(onehot[y]), _faded(onehot[p])
    n = T.sum(axis=1)
    p0 = _faded((y == p).astype(float)) / n
    if name == "oca":
        return p0
    if name == "kappa":
        pe = (T * P).sum(axis=1) / (n * n)
    else:
        pe = _faded((refs[name] == y).astype(float)) / n
    return np.divide(p0 - pe, 1 - pe, out=np.zeros_like(n), where=pe < 1 - 1e-15)


def _check(records: list[dict], runs: Path) -> None:
    for rec in records:
        saved = load_predictions(runs / f"{rec['run_id']}.pred.npz")
        y, p = saved["y_true"].astype(np.int64), saved["y_pred"].astype(np.int64)
        c = int(max(y.max(), p.max())) + 1
        refs = {"kappa_m": np.asarray(majority_class_loop(y, c)),
                "kappa_t": np.asarray(no_change_loop(y))}
        at = np.asarray(rec["curves"]["t"])
        assert at[-1] == y.size
        win, fad = rec["windowed"], rec["fading"]
        assert win["window"] == WINDOW and fad["alpha"] == ALPHA
        assert win["not_supported"] == [] and fad["not_supported"] == []
        for name in METRICS:
            cum = [_cumulative(name, y, p, t, refs) for t in at]
            np.testing.assert_allclose(rec["curves"][name], cum, rtol=1e-12, atol=1e-12)
            assert rec["metrics"][name] == rec["curves"][name][-1]
            sliced = [_cumulative(name, y[max(0, t - WINDOW):t], p[max(0, t - WINDOW):t],
                                  min(t, WINDOW),
                                  {k: r[max(0, t - WINDOW):t] for k, r in refs.items()})
                      for t in at]
            np.testing.assert_allclose(win["curves"][name], sliced, rtol=1e-12, atol=1e-12)
            assert win["metrics"][name] == win["curves"][name][-1]
            faded = _faded_curve(name, y, p, c, refs)[at - 1]
            np.testing.assert_allclose(fad["curves"][name], faded, rtol=1e-10, atol=1e-12)
            assert fad["metrics"][name] == fad["curves"][name][-1]
        zero = {"Majority": "kappa_m", "No change": "kappa_t"}.get(rec["algorithm"])
        if zero is not None:
            for block in (rec, win, fad):
                assert block["metrics"][zero] == 0.0
                assert all(v == 0.0 for v in block["curves"][zero])
        else:  # the tree is no reference: its kappas are not all zero
            assert rec["metrics"]["kappa"] != 0.0


def test_run_on_sea(tmp_path: Path) -> None:
    records = _run(tmp_path, {"name": "sea", "label": "SEA", "max_samples": 3000})
    _check(records, tmp_path / "out" / "runs")


@pytest.mark.datasets
def test_run_on_electricity(tmp_path: Path, data_dir: Path) -> None:
    records = _run(tmp_path, {"name": "electricity", "label": "Electricity"}, str(data_dir))
    _check(records, tmp_path / "out" / "runs")
    by = {r["algorithm"]: r for r in records}
    # the stream's temporal dependence: no change beats the majority by far
    assert by["No change"]["metrics"]["oca"] > by["Majority"]["metrics"]["oca"] + 0.2
