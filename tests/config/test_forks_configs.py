"""The FORKS configs (configs/forks/): every one validates; the KuaiRec configs (Figs. 3
and 5) run end to end on a small synthetic file in the KuaiRec format and stop with the
'data not present' error when the archive is absent; Table-1 smoke run on real data."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from streamlearn.config import load_config
from streamlearn.errors import DataError
from streamlearn.evaluation.runner import run_experiment
from tests.datasets.tiny_data import KUAI_HEADER, pin, write_kuairec

CONFIGS = sorted((Path(__file__).resolve().parents[2] / "configs" / "forks").glob("*.yaml"))


def test_there_are_forks_configs() -> None:
    names = {p.stem for p in CONFIGS}
    assert {"table1_german", "table1_codrna", "table2_german1", "table3_codrna2",
            "fig2_codrna", "fig3a_fig5_kuairec", "fig3b_kuairec"} <= names


@pytest.mark.parametrize("path", CONFIGS, ids=[p.stem for p in CONFIGS])
def test_config_parses(path: Path) -> None:
    cfg = load_config(path)
    assert cfg.metrics[0] == "mistake_rate"
    assert set(cfg.metrics) <= {"mistake_rate", "regret_hinge", "regret_sq_hinge"}
    labels = [a.label for a in cfg.algorithms]
    assert len(labels) == len(set(labels))


def _kuairec_rows(n: int = 400) -> str:
    rows = []
    for i in range(n):
        user, video = (14, 148) if i % 3 else (21, 183)
        ratio = [0.2, 0.9, 1.5, 0.5][i % 4]
        ts = 1593898000.0 + 60 * i
        day = "20200705.0" if i < n // 2 else "20200706.0"
        rows.append(f"{user},{video},100,6067,2020-07-05 05:27:48,{day},{ts},{ratio}")
    return KUAI_HEADER + "\n".join(rows) + "\n"


@pytest.mark.parametrize("name", ["fig3a_fig5_kuairec", "fig3b_kuairec"])
def test_kuairec_config_runs_on_a_synthetic_archive(tmp_path, monkeypatch, name) -> None:
    ddir = tmp_path / "data"
    write_kuairec(ddir, _kuairec_rows())
    pin(monkeypatch, "kuairec", ddir)
    cfg = load_config(Path("configs/forks") / f"{name}.yaml").smoke_version()
    out = tmp_path / "out"
    res = run_experiment(cfg, out, data_dir=str(ddir), smoke=True)
    records = [json.loads(p.read_text()) for p in (out / "runs").glob("*.json")]
    assert res.n_run == len(records) == 21  # 4 algorithms x 5 budgets + PROS-N-KONS
    assert all(r["status"] == "ok" for r in records), [r.get("error") for r in records]
    assert all(0.0 <= r["metrics"]["mistake_rate"] <= 1.0 for r in records)


def test_kuairec_config_stops_when_the_data_is_absent(tmp_path) -> None:
    cfg = load_config("configs/forks/fig3a_fig5_kuairec.yaml")
    with pytest.raises(DataError, match="kuairec"):
        run_experiment(cfg, tmp_path / "out", data_dir=str(tmp_path / "empty"))


@pytest.mark.parametrize("name", ["table1_german", "table2_german1"])
def test_table_smoke_on_real_data(tmp_path, data_dir, name) -> None:
    cfg = load_config(Path("configs/forks") / f"{name}.yaml").smoke_version()
    res = run_experiment(cfg, tmp_path / "out", data_dir=str(data_dir), smoke=True)
    records = [json.loads(p.read_text()) for p in (tmp_path / "out" / "runs").glob("*.json")]
    assert res.n_run == len(cfg.algorithms) == len(records)
    assert all(r["status"] == "ok" for r in records), [r.get("error") for r in records]
