"""The evaluation methods through the runner: one run per fold, --jobs 2 = --jobs 1,
resume, the Dask backend, the windowed blocks, and the refusals before anything is
written (exit 2)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import yaml

from streamlearn.config import load_config, parse_config
from streamlearn.errors import UserError
from streamlearn.evaluation.runner import plan_runs, run_experiment
from streamlearn.evaluation.runs import compute_run
from streamlearn.protocols.prequential_classification import PrequentialClassification
from tests.cli_helpers import run_cli
from tests.saved_predictions import load_predictions

VOLATILE = {"timing", "memory", "git_commit", "versions", "machine"}
LEARNER = "tests.protocols.method_helpers:NearestMean"


def _cfg(params: dict, **extra: object) -> dict:
    return {
        "name": "methods_t",
        "protocol": {"name": "prequential-classification", "params": params},
        "repeats": 2,
        "streams": [{"name": "sea", "label": "SEA", "max_samples": 600, "reseed": True}],
        "algorithms": [{"name": LEARNER, "label": "NM"}, {"name": "rls", "label": "RLS"}],
        "metrics": ["oca"],
        "evaluation": {"chunk_size": 128, "checkpoints": 10},
        "outputs": {"plots": []},
        **extra,
    }


def _records(out: Path) -> dict[str, dict]:
    return {p.stem: json.loads(p.read_text()) for p in sorted((out / "runs").glob("*.json"))}


def _stable(record: dict) -> dict:
    return {k: v for k, v in record.items() if k not in VOLATILE}


CV = {"validation": {"method": "cross", "folds": 3}}
METHODS = [CV, {"validation": {"method": "bootstrap", "folds": 2}}, {"delay": 25},
           {"holdout": {"every": 100, "size": 30}}]


def test_plan_has_one_run_per_fold():
    specs = plan_runs(parse_config(_cfg(CV)))
    assert len(specs) == 2 * 2 * 3
    assert {s.run_id for s in specs if s.algorithm.label == "RLS" and s.seed == 1} == {
        f"SEA__RLS__seed1_fold{f}" for f in range(3)}
    assert len({s.digest for s in specs}) == len(specs)
    assert all(s.fold is None for s in plan_runs(parse_config(_cfg({"delay": 3}))))


def test_cross_validation_records_and_spread(tmp_path):
    """k-fold CV of a deterministic learner on a fixed stream: SD > 0 over the folds."""
    cfg = _cfg(CV, repeats=1, streams=[{"name": "sea", "label": "SEA", "max_samples": 600}],
               evaluation={"chunk_size": 128, "checkpoints": 10, "window": 50})
    result = run_experiment(parse_config(cfg), tmp_path)
    assert result.n_run == 6 and not result.failed
    recs = _records(tmp_path)
    nm = [recs[f"SEA__NM__seed0_fold{f}"] for f in range(3)]
    assert [r["fold"] for r in nm] == [{"method": "cross", "index": f, "folds": 3}
                                      for f in range(3)]
    assert np.std([r["metrics"]["oca"] for r in nm], ddof=1) > 0
    # the windowed block of a copy (over the last 50 samples it was tested on), at the
    # checkpoints of the cumulative curves
    block = nm[0]["windowed"]
    assert block["window"] == 50
    assert set(block["metrics"]) | set(block["not_supported"]) == {"oca", "oce"}
    assert all(len(c) == len(nm[0]["curves"]["t"]) for c in block["curves"].values())


@pytest.mark.floatpath
@pytest.mark.parametrize("params", METHODS, ids=["cross", "bootstrap", "delay", "holdout"])
def test_jobs_2_equals_jobs_1(tmp_path, params):
    cfg = parse_config(_cfg(params, evaluation={"chunk_size": 128, "checkpoints": 10,
                                                "save_predictions": True}))
    run_experiment(cfg, tmp_path / "serial", jobs=1)
    run_experiment(cfg, tmp_path / "parallel", jobs=2)
    a, b = _records(tmp_path / "serial"), _records(tmp_path / "parallel")
    assert a.keys() == b.keys() and len(a) == len(plan_runs(cfg))
    for k in a:
        assert a[k]["status"] == "ok", a[k].get("error")
        assert _stable(a[k]) == _stable(b[k])
        pa = load_predictions(tmp_path / "serial" / "runs" / f"{k}.pred.npz")
        pb = load_predictions(tmp_path / "parallel" / "runs" / f"{k}.pred.npz")
        for name in pa:
            np.testing.assert_array_equal(pa[name], pb[name])


def test_resume_recomputes_only_the_missing_fold(tmp_path):
    cfg = parse_config(_cfg(CV))
    first = run_experiment(cfg, tmp_path)
    assert first.n_run == 12
    before = _records(tmp_path)
    (tmp_path / "runs" / "SEA__NM__seed1_fold2.json").unlink()
    again = run_experiment(cfg, tmp_path)
    assert again.n_run == 1 and again.n_skipped == 11
    assert [o.run_id for o in again.outcomes if o.status == "ok"] == ["SEA__NM__seed1_fold2"]
    assert _stable(_records(tmp_path)["SEA__NM__seed1_fold2"]) == _stable(
        before["SEA__NM__seed1_fold2"])


@pytest.mark.parametrize("params,evaluation,match", [
    ({"delay": 600}, {}, "delay = 600 would not reveal any label"),
    ({"holdout": {"every": 500, "size": 101}}, {}, "needs 601 samples"),
    ({}, {"window": 601}, "fewer than evaluation.window = 601"),
])
def test_too_short_a_stream_is_refused_before_anything_is_written(tmp_path, params,
                                                                  evaluation, match):
    cfg = parse_config(_cfg(params, evaluation={"checkpoints": 10, **evaluation}))
    out = tmp_path / "out"
    with pytest.raises(UserError, match=match) as info:
        run_experiment(cfg, out)
    assert "Stream 'SEA' has 600 samples (after its max_samples cap)" in str(info.value)
    assert not out.exists() or not any(out.iterdir())


@pytest.mark.parametrize("params,window,scored,match", [
    # 600 samples, 3-fold cross: each copy tested on 200 of them
    (CV, 201, 200, "each copy of the 3-fold cross validation is tested on one sample in 3"),
    # tests of 30 at 100, 230, 360, 490: 120 held out, 480 test-then-train predictions
    ({"holdout": {"every": 100, "size": 30}}, 481, 480, "120 of them held out by holdout"),
])
def test_a_window_longer_than_the_scored_predictions_is_refused(tmp_path, params, window,
                                                                scored, match):
    """The window is checked against the predictions a run (each copy) scores, not the
    stream's samples: a 3-fold cross validation on 600 samples with window 201 had run
    (exit 0), each copy's windowed metrics equal to its cumulative ones under a "last 201
    predictions" caption. The largest window that fits runs."""
    cfg = _cfg(params, repeats=1, algorithms=[{"name": LEARNER, "label": "NM"}])
    cfg["evaluation"] = {"checkpoints": 10, "window": window}
    out = tmp_path / "out"
    with pytest.raises(UserError, match=match) as info:
        run_experiment(parse_config(cfg), out)
    assert (f"Stream 'SEA' has 600 samples (after its max_samples cap), and a run scores "
            f"{scored} predictions on it") in str(info.value)
    assert f"fewer than evaluation.window = {window}" in str(info.value)
    assert not out.exists() or not any(out.iterdir())
    cfg["evaluation"]["window"] = scored
    assert not run_experiment(parse_config(cfg), out).failed
    # the refusal made where the count is known only once the stream is prepared
    # (Dask workers with their own data): before the learner runs, a UserError
    spec = plan_runs(parse_config({**cfg, "evaluation": {"window": window}}))[0]
    with pytest.raises(UserError, match=f"Stream 'SEA' has 600 samples as prepared, and a "
                       f"run scores {scored} predictions"):
        compute_run(spec, None)


def test_split_and_bootstrap_copies_are_tested_on_every_sample(tmp_path):
    for method in ("split", "bootstrap"):
        cfg = _cfg({"validation": {"method": method, "folds": 3}}, repeats=1,
                   algorithms=[{"name": LEARNER, "label": "NM"}])
        cfg["evaluation"] = {"checkpoints": 10, "window": 600}
        assert not run_experiment(parse_config(cfg), tmp_path / method).failed


@pytest.mark.parametrize("params,match", [
    ({"delay": -1}, "integer >= 0"),
    ({"validation": {"method": "cross", "folds": 1}}, "integer >= 2"),
    ({"delay": 700}, "would not reveal any label"),
])
def test_cli_exit_2_and_nothing_written(tmp_path, capsys, params, match):
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(_cfg(params)))
    out = tmp_path / "out"
    rc, text = run_cli(["run", str(path), "--out", str(out), "--quiet"], capsys)
    assert rc == 2, text
    assert match in " ".join(text.split())
    assert "Traceback" not in text
    assert not out.exists() or not any(out.iterdir())


def test_dask_backend_gives_the_fold_records_of_jobs_1(tmp_path, capsys):
    pytest.importorskip("distributed", reason="the dask extra is not installed")
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(_cfg(CV, repeats=1)))
    run_experiment(load_config(path), tmp_path / "serial", jobs=1)
    args = ["run", str(path), "--out", str(tmp_path / "dask"), "--backend", "dask",
            "--jobs", "2", "--quiet"]
    rc, text = run_cli(args, capsys)
    assert rc == 0, text
    a, b = _records(tmp_path / "serial"), _records(tmp_path / "dask")
    assert len(a) == 6 and a.keys() == b.keys()
    for k in a:
        assert _stable(a[k]) == _stable(b[k])


def test_the_protocol_checks_the_length_when_the_runner_could_not():
    """Where the client cannot know a stream's length (Dask workers with their own data),
    the protocol refuses it when it prepares the stream: a UserError, not a failed run."""
    cfg = parse_config(_cfg({"delay": 700}))
    proto = PrequentialClassification(delay=700)
    with pytest.raises(UserError, match="has 600 samples, but protocol parameter delay = 700"):
        proto.prepare(cfg.streams[0], 0, None)
    assert PrequentialClassification(delay=599).prepare(cfg.streams[0], 0, None).X.shape[0] == 600
