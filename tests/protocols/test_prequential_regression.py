"""The prequential-regression protocol end to end through ``streamlearn run``: the target
shift, no lag matrix, regret and warnings in the records, tiling, and bad configs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml

from streamlearn.base import Regressor, StreamInfo
from streamlearn.config import parse_config
from streamlearn.errors import UserError
from streamlearn.protocols.preparation import tile
from streamlearn.protocols.prequential_regression import PrequentialRegression
from tests.cli_helpers import run_cli
from tests.saved_predictions import load_predictions


def _run(tmp_path: Path, cfg: dict, capsys, *extra: str) -> tuple[int, str]:
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return run_cli(["run", str(path), "--out", str(tmp_path / "out"), "-q", *extra], capsys)


def _records(tmp_path: Path) -> dict[str, dict]:
    recs = [json.loads(p.read_text()) for p in (tmp_path / "out" / "runs").glob("*.json")]
    return {r["algorithm"]: r for r in recs}


def _cfg(**over: Any) -> dict:
    cfg = {"name": "series", "protocol": "prequential-regression", "repeats": 1,
           "streams": [{"name": "ar2", "label": "AR2", "params": {"n_samples": 600}}],
           "algorithms": [
               {"name": "ons", "label": "R-ONS", "params": {"M": 6, "lr": 0.5}},
               {"name": "fast_ons", "label": "F-ONS", "params": {"M": 6, "lr": 0.5}},
               {"name": "fast_ons", "label": "F-ONS tau",
                "params": {"M": 6, "lr": 0.5, "tau": 0.999}},
               {"name": "ogd", "label": "OGD", "params": {"M": 6, "lr": 0.05}}],
           "metrics": ["mse", "mae", "cum_abs_loss", "regret_abs", "regret_sq"],
           "evaluation": {"checkpoints": 5, "save_predictions": True}}
    cfg.update(over)
    return cfg


def test_prepare_shifts_the_target_and_keeps_views():
    cfg = parse_config(_cfg())
    proto = PrequentialRegression()
    data = proto.prepare(cfg.streams[0], 0, None)
    series = data.extra["series"]
    np.testing.assert_array_equal(data.X[:, 0], series[:-1])
    np.testing.assert_array_equal(data.y, series[1:])
    assert np.shares_memory(data.X, series) and np.shares_memory(data.y, series)
    assert data.X.shape == (599, 1)


def test_runs_end_to_end_with_regret_and_equal_predictions(tmp_path, capsys):
    rc, text = _run(tmp_path, _cfg(), capsys)
    assert rc == 0, text
    recs = _records(tmp_path)
    assert set(recs) == {"R-ONS", "F-ONS", "F-ONS tau", "OGD"}
    preds = {k: load_predictions(tmp_path / "out" / "runs" / f"{Path(r['run_id']).name}.pred.npz")
             for k, r in recs.items()}
    reg, fast = preds["R-ONS"]["y_pred"], preds["F-ONS"]["y_pred"]
    assert np.max(np.abs(reg - fast)) <= 1e-9 * np.max(np.abs(reg))
    y = preds["R-ONS"]["y_true"]
    for name, r in recs.items():
        p = preds[name]["y_pred"]
        assert r["metrics"]["mse"] == pytest.approx(float(np.mean((y - p) ** 2)), rel=1e-12)
        assert r["metrics"]["cum_abs_loss"] == pytest.approx(float(np.abs(y - p).sum()))
        assert np.isfinite(r["metrics"]["regret_abs"])
        assert len(r["curves"]["regret_abs"]) == len(r["curves"]["t"])
    # the breakdown path is reported in the record, the clean run has no warning
    assert recs["F-ONS tau"]["learner_counters"]["breakdowns_"] > 0
    assert "breakdown" in recs["F-ONS tau"]["warnings"][0]
    assert "warnings" not in recs["F-ONS"]
    assert "1 run(s) carry warnings" in text and "breakdown" in text
    table = (tmp_path / "out" / "summary.md").read_text()
    assert "Regret/T (abs)" in table


def test_generic_regressor_reads_lag_windows(tmp_path, capsys):
    """A regressor without its own delay line gets [x_t, .., x_{t-L+1}] as a view."""
    from streamlearn import components, registry

    seen: list[list[np.ndarray]] = []  # the inputs of each instance

    class Spy(Regressor):
        """Records its inputs; predicts 0."""

        def __init__(self) -> None:
            pass

        def reset(self, n_features: int, n_classes: int | None) -> None:
            self.d_ = n_features
            self.inputs_: list[np.ndarray] = []
            seen.append(self.inputs_)

        def predict_one(self, x: np.ndarray) -> float:
            self.inputs_.append(np.array(x))
            return 0.0

        def learn_one(self, x: np.ndarray, y: Any) -> None:
            pass

    components.load_all()
    registry.register_algorithm("spy_regressor")(Spy)
    try:
        cfg = _cfg(protocol={"name": "prequential-regression", "params": {"lags": 3}},
                   algorithms=[{"name": "spy_regressor", "label": "spy"}], metrics=["mse"])
        rc, text = _run(tmp_path, cfg, capsys)
    finally:
        registry.ALGORITHMS.pop("spy_regressor", None)
    assert rc == 0, text
    # the timed run's instance (the warm-up's and the run-time checks' see fewer rows)
    x = np.asarray(next(inputs for inputs in seen if len(inputs) == 599))
    assert x.shape == (599, 3)
    np.testing.assert_array_equal(x[0], [x[0, 0], 0.0, 0.0])
    np.testing.assert_array_equal(x[5, 1:], x[4, :2])


def test_tile_to_repeats_the_series_and_says_so(tmp_path, capsys):
    cfg = _cfg(protocol={"name": "prequential-regression", "params": {"tile_to": 1500}},
               algorithms=[{"name": "fast_ons", "label": "F", "params": {"M": 4}}],
               metrics=["mse"])
    rc, text = _run(tmp_path, cfg, capsys)
    assert rc == 0, text
    rec = _records(tmp_path)["F"]
    assert rec["stream_info"]["n_samples"] == 1499
    assert any("repeated end to end to 1500" in s
               for s in rec["stream_info"]["runner_preprocessing"])
    np.testing.assert_array_equal(tile(np.arange(3.0), 7), [0, 1, 2, 0, 1, 2, 0])


@pytest.mark.parametrize("over,needle", [
    ({"streams": [{"name": "sea", "label": "SEA", "max_samples": 100}]},
     "needs regression streams"),
    ({"metrics": ["oca"]}, "oca"),
    ({"protocol": {"name": "prequential-regression", "params": {"lags": 0}}}, "lags"),
    ({"algorithms": [{"name": "rls", "label": "RLS"}]}, "regression"),
])
def test_bad_configs_exit_nonzero_with_a_message(tmp_path, capsys, over, needle):
    rc, text = _run(tmp_path, _cfg(**over), capsys)
    assert rc != 0
    assert needle in text and "Traceback" not in text
    assert not list((tmp_path / "out" / "runs").glob("*.json")) if (
        tmp_path / "out" / "runs").exists() else True


def test_info_of_generated_series():
    from streamlearn.datasets.synthetic.series import SpeechLikeSeries

    s = SpeechLikeSeries(n_samples=1000, seed=1)
    X, y = s.to_arrays()
    assert isinstance(s.info(), StreamInfo) and X.shape == (1000, 1)
    assert y.min() == -1.0 and y.max() == 1.0
    np.testing.assert_array_equal(X[:, 0], y)
    np.testing.assert_array_equal(SpeechLikeSeries(n_samples=1000, seed=1).to_arrays()[1], y)


def test_regret_beyond_the_cap_is_final_on_the_documented_prefix(tmp_path, capsys):
    """A series longer than ``regret_max_samples``: the cap becomes a checkpoint, the final
    regret is the one on that prefix (recomputed here from the saved predictions), and the
    record and the table caption say so; metrics without a comparator stay whole-series."""
    from streamlearn.metrics.regret import best_fixed_abs_loss, best_fixed_sq_loss, lag_windows

    cfg = _cfg(protocol={"name": "prequential-regression",
                         "params": {"regret_max_samples": 250}})
    cfg["algorithms"] = cfg["algorithms"][:2]
    rc, text = _run(tmp_path, cfg, capsys)
    assert rc == 0, text
    recs = _records(tmp_path)
    cap = 250
    for r in recs.values():
        with np.load(tmp_path / "out" / "runs" / f"{Path(r['run_id']).name}.pred.npz") as p:
            y, yp, x0 = p["y_true"], p["y_pred"], p["x0"]
        series = np.concatenate([x0, y])
        X = np.ascontiguousarray(lag_windows(series[:-1][:cap], 6))
        want_abs = (np.abs(y[:cap] - yp[:cap]).sum() - best_fixed_abs_loss(X, y[:cap])) / cap
        want_sq = (((y[:cap] - yp[:cap]) ** 2).sum() - best_fixed_sq_loss(X, y[:cap])) / cap
        assert r["metrics"]["regret_abs"] == pytest.approx(want_abs, rel=1e-9, abs=1e-12)
        assert r["metrics"]["regret_sq"] == pytest.approx(want_sq, rel=1e-9, abs=1e-12)
        assert r["metric_prefix"] == {"regret_abs": cap, "regret_sq": cap}
        assert cap in r["curves"]["t"] and r["curves"]["t"][-1] == y.size
        assert np.isnan(r["curves"]["regret_abs"][-1])  # beyond the cap: not solved
        assert r["metrics"]["mse"] == pytest.approx(float(np.mean((y - yp) ** 2)), rel=1e-12)
    table = (tmp_path / "out" / "summary.md").read_text()
    assert "on the first 250 predictions" in table


def test_regret_comparator_is_solved_once_per_series(monkeypatch):
    """The comparator depends on the series only: a second learner on the same series
    reuses the cached optimum (same values, no new solve)."""
    from streamlearn.metrics import regret
    calls = []
    real = regret.best_fixed_abs_loss
    monkeypatch.setattr(regret, "_BEST_CACHE", regret.OrderedDict())
    monkeypatch.setattr(regret.AbsoluteRegret, "_best",
                        staticmethod(lambda X, y: calls.append(len(y)) or real(X, y)))
    rng = np.random.default_rng(3)
    s = np.cumsum(rng.normal(size=121))
    from streamlearn.base import MetricContext

    ctx = MetricContext(extra={"series": s, "lags": np.array([3]),
                               "intercept": np.array([0]),
                               "regret_max_samples": np.array([1000])})
    at = np.array([40, 80, 120])
    first = regret.AbsoluteRegret.curve(s[1:], np.zeros(120), at, ctx)
    n_first = len(calls)
    second = regret.AbsoluteRegret.curve(s[1:], 0.5 * s[:-1], at, ctx)
    assert n_first == 3 and len(calls) == 3
    cum = np.cumsum(np.abs(s[1:] - 0.5 * s[:-1]))
    # the cached optimum is the same number a fresh solve gives
    X = np.ascontiguousarray(regret.lag_windows(s[:-1], 3))
    np.testing.assert_allclose(first[-1] * 120,
                               np.abs(s[1:]).sum() - real(X, s[1:]), rtol=1e-12)
    np.testing.assert_allclose(second[-1] * 120, cum[-1] - real(X, s[1:]), rtol=1e-12)


@pytest.mark.floatpath
def test_engine_writes_into_its_own_array_with_the_same_predictions():
    """``predict_learn_into`` (used by the engine when a learner has it) gives the same
    predictions as ``predict_learn_many`` and as the per-sample loop."""
    from streamlearn.algorithms.series.fast_ons import FastONS
    from streamlearn.protocols.prequential_loop import run_prequential
    from tests.reference.online_newton_step import ar2_series

    s = ar2_series(2001, seed=3)
    X, y = s[:-1, None], s[1:]

    class ManyOnly(FastONS):
        predict_learn_into = None  # the engine falls back to predict_learn_many

        def predict_learn_many(self, X, y):
            out = np.empty(X.shape[0])
            FastONS.predict_learn_into(self, X, y, out)
            return out

    outs = []
    for learner, fused in ((FastONS(M=5), True), (ManyOnly(M=5), True), (FastONS(M=5), False)):
        learner.reset(1, None)
        outs.append(run_prequential(learner, X, y, chunk_size=333, use_many=fused).y_pred)
    np.testing.assert_array_equal(outs[0], outs[1])
    np.testing.assert_array_equal(outs[0], outs[2])


def test_parallel_runs_and_resume_like_the_other_protocols(tmp_path, capsys):
    """--jobs 2 gives the records of --jobs 1 (metrics and curves, seed for seed), and a
    second run of the same config recomputes nothing."""
    cfg = _cfg(repeats=2)
    cfg["algorithms"] = [cfg["algorithms"][1], cfg["algorithms"][3]]
    cfg["metrics"] = ["mse", "mae", "regret_sq"]
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir()
    two.mkdir()
    rc, text = _run(one, cfg, capsys)
    assert rc == 0, text
    rc, text = _run(two, cfg, capsys, "--jobs", "2")
    assert rc == 0, text

    def recs(d: Path) -> dict[str, dict]:
        out = {}
        for p in (d / "out" / "runs").glob("*.json"):
            r = json.loads(p.read_text())
            out[r["run_id"]] = {"metrics": r["metrics"], "curves": r["curves"]}
        return out

    a, b = recs(one), recs(two)
    assert len(a) == 4 and a == b
    rc, text = _run(one, cfg, capsys)
    assert rc == 0 and "0 to run" in " ".join(text.split()), text


def test_streamed_metrics_equal_those_from_the_saved_predictions(tmp_path, capsys):
    """Without save_predictions the protocol sums the losses chunk by chunk and never holds
    the predictions: metrics and curves (regret past its cap included) are bit-identical
    to the run that keeps and saves them."""
    cfg = _cfg(protocol={"name": "prequential-regression",
                         "params": {"regret_max_samples": 250}})
    cfg["algorithms"] = [cfg["algorithms"][1], cfg["algorithms"][3]]
    cfg["evaluation"] = {"checkpoints": 7, "chunk_size": 64, "save_predictions": True}
    kept, streamed = tmp_path / "kept", tmp_path / "streamed"
    kept.mkdir()
    streamed.mkdir()
    rc, text = _run(kept, cfg, capsys)
    assert rc == 0, text
    cfg["evaluation"]["save_predictions"] = False
    rc, text = _run(streamed, cfg, capsys)
    assert rc == 0, text
    a, b = _records(kept), _records(streamed)
    assert set(a) == set(b) == {"F-ONS", "OGD"}
    for name in a:
        assert a[name]["metrics"] == b[name]["metrics"]
        assert a[name]["curves"] == b[name]["curves"]
    assert not list((streamed / "out" / "runs").glob("*.npz"))


def test_streaming_holds_no_prediction_array():
    """The engine with keep_predictions=False hands each chunk to the callback and keeps
    one chunk's buffer only."""
    from streamlearn.algorithms.series.fast_ons import FastONS
    from streamlearn.protocols.prequential_loop import run_prequential
    from tests.reference.online_newton_step import ar2_series

    s = ar2_series(1001, seed=4)
    X, y = s[:-1, None], s[1:]
    learner = FastONS(M=4)
    learner.reset(1, None)
    whole = run_prequential(learner, X, y, chunk_size=128).y_pred
    seen = []
    learner = FastONS(M=4)
    learner.reset(1, None)
    out = run_prequential(learner, X, y, chunk_size=128, keep_predictions=False,
                          on_predictions=lambda start, p: seen.append((start, p.copy())))
    assert out.y_pred.size == 0
    assert [st for st, _ in seen] == list(range(0, 1000, 128))
    np.testing.assert_array_equal(np.concatenate([p for _, p in seen]), whole)


def test_regret_comparator_has_an_intercept_when_the_learner_has_one(tmp_path, capsys):
    """River's linear regression has an intercept (and a scaler), but only learners with
    `offset` had been compared with an intercept: its regret came out 7-8 % low (hunt of
    7 Dec). Each learner's regret is recomputed here from its saved predictions with the
    comparator its record names, and that comparator is checked per learner."""
    from streamlearn.metrics.regret import best_fixed_abs_loss, lag_windows

    cfg = _cfg(protocol={"name": "prequential-regression", "params": {"lags": 3}})
    cfg["algorithms"] = [{"name": "linear_regression", "label": "River LR"},
                         {"name": "ogd", "label": "OGD", "params": {"M": 3, "lr": 0.05}},
                         {"name": "ogd", "label": "OGD offset",
                          "params": {"M": 3, "lr": 0.05, "offset": True}}]
    rc, text = _run(tmp_path, cfg, capsys)
    assert rc == 0, text
    recs = _records(tmp_path)
    expected = {"River LR": True, "OGD": False, "OGD offset": True}
    for label, r in recs.items():
        assert r.get("regret_comparator_intercept", False) is expected[label], label
        with np.load(tmp_path / "out" / "runs" / f"{r['run_id']}.pred.npz") as p:
            y, yp, x0 = p["y_true"], p["y_pred"], p["x0"]
        series = np.concatenate([x0, y])
        X = np.ascontiguousarray(lag_windows(series[:-1], 3))
        if expected[label]:
            X = np.hstack([X, np.ones((X.shape[0], 1))])
        w = np.linalg.lstsq(X, y, rcond=None)[0]
        n = y.size
        want_sq = (((y - yp) ** 2).sum() - ((y - X @ w) ** 2).sum()) / n
        want_abs = (np.abs(y - yp).sum() - best_fixed_abs_loss(X, y)) / n
        assert r["metrics"]["regret_sq"] == pytest.approx(want_sq, rel=1e-8, abs=1e-12)
        assert r["metrics"]["regret_abs"] == pytest.approx(want_abs, rel=1e-8, abs=1e-12)



def test_rmse_of_targets_near_1e300_is_a_number_streamed_or_not(tmp_path, capsys,
                                                               monkeypatch):
    """A CSV of targets about 1e300 (squared errors past the largest double) had RMSE
    inf and R² "—" in the summary, with overflow warnings, exit 0, although its RMSE is
    about 6e299. Streamed (no predictions kept) and from the kept predictions alike."""
    from tests.cli_helpers import user_module

    rng = np.random.default_rng(0)
    y = rng.uniform(-1.0, 1.0, 300) * 1e300
    (tmp_path / "big.csv").write_text(
        "x,y\n" + "".join(f"{k},{float(v)!r}\n" for k, v in enumerate(y)))
    rmse = float(np.sqrt(np.mean((y / 1e300) ** 2))) * 1e300  # of predictions 0
    source = ("class Zero:\n    task = 'regression'\n"
              "    def predict_one(self, x):\n        return 0.0\n"
              "    def learn_one(self, x, y):\n        pass\n")
    finals = {}
    with user_module(tmp_path, monkeypatch, "zero_learner", source):
        for kept, metrics in ((True, ["rmse", "mae", "r2"]), (False, ["rmse", "mae"])):
            cfg = _cfg(streams=[{"name": "csv_regression", "label": "Big",
                                 "params": {"path": "big.csv", "target": "y"}}],
                       algorithms=[{"name": "zero_learner:Zero", "label": "Zero"}],
                       metrics=metrics,
                       evaluation={"checkpoints": 5, "save_predictions": kept})
            out = tmp_path / str(kept)
            out.mkdir()
            rc, text = _run(out, cfg, capsys)
            assert rc == 0, text
            assert "Warning" not in text, text
            (rec,) = _records(out).values()
            finals[kept] = rec["metrics"]
            assert rec["metrics"]["rmse"] == pytest.approx(rmse, rel=1e-13)
            summary = (out / "out" / "summary.csv").read_text()
            assert "inf" not in summary and ",nan," not in summary, summary
            assert f"Big,Zero,rmse,{rmse:.6g}," in summary, summary
    u = y / 1e300
    assert finals[True]["r2"] == pytest.approx(-np.mean(u) ** 2 / np.var(u), rel=1e-10)
    assert [finals[False][k] for k in ("rmse", "mae")] == [finals[True][k]
                                                            for k in ("rmse", "mae")]


def test_a_window_as_long_as_the_series_is_refused(tmp_path, capsys):
    """A series of n values gives n - 1 predictions: ``window: 10`` on 10 values had run
    (exit 0) with the windowed MSE equal to the cumulative one, headed "MSE w=10"."""
    cfg = _cfg(streams=[{"name": "ar2", "label": "AR2", "max_samples": 10}],
               algorithms=[{"name": "ogd", "label": "OGD", "params": {"M": 2, "lr": 0.05}}],
               metrics=["mse"], evaluation={"checkpoints": 3, "window": 10})
    rc, text = _run(tmp_path, cfg, capsys)
    assert rc == 2, text
    flat = " ".join(text.split())
    assert ("Stream 'AR2' has 10 samples (after its max_samples cap), and a run scores 9 "
            "predictions on it (one-step-ahead prediction on a series of 10 values") in flat
    assert "Traceback" not in text and not (tmp_path / "out").exists()
    cfg["evaluation"]["window"] = 9
    rc, text = _run(tmp_path, cfg, capsys)
    assert rc == 0, text
    assert _records(tmp_path)["OGD"]["windowed"]["window"] == 9


def test_a_window_is_checked_against_the_tiled_series():
    """``tile_to`` sets the series' length (a window longer than the file's series but
    within the tiled one had been refused), and ``max_samples`` caps the tiled series."""
    from streamlearn.evaluation.runner import check_stream_lengths

    def cfg(window: int, max_samples: int | None = None) -> Any:
        stream = {"name": "ar2", "label": "AR2", "params": {"n_samples": 600},
                  **({"max_samples": max_samples} if max_samples else {})}
        return parse_config(_cfg(
            protocol={"name": "prequential-regression", "params": {"tile_to": 1500}},
            streams=[stream], metrics=["mse"], evaluation={"window": window}))

    check_stream_lengths(cfg(1499), None, reads_data=True)
    with pytest.raises(UserError, match="a run scores 1499 predictions on it"):
        check_stream_lengths(cfg(1500), None, reads_data=True)
    with pytest.raises(UserError, match=r"tiled \(tile_to = 1500\) and capped to 700 values"):
        check_stream_lengths(cfg(700, max_samples=700), None, reads_data=True)


@pytest.mark.parametrize("command", ["run", "validate"])
def test_a_series_capped_to_one_value_is_refused_at_validation(tmp_path, capsys, command):
    """``max_samples: 1`` leaves nothing to predict: refused when the config is validated,
    naming the stream and its cap (it had failed after the progress bar with "a series of
    1 values has no target 1 step(s) ahead", and ``validate`` had passed it, exit 0)."""
    cfg = _cfg(streams=[{"name": "ar2", "label": "AR2", "max_samples": 1}],
               algorithms=[{"name": "ogd", "label": "OGD", "params": {"M": 2}}],
               metrics=["mse"])
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(cfg))
    extra = ["--out", str(tmp_path / "out")] if command == "run" else []
    rc, text = run_cli([command, str(path), *extra], capsys)
    flat = " ".join(text.split())
    assert rc == 2, text
    assert ("stream 'AR2' (ar2) is a univariate series and its max_samples: 1 leaves 1 "
            "value(s)") in flat
    assert "runs" not in flat and "Traceback" not in flat
    assert not (tmp_path / "out").exists()
    cfg["streams"][0]["max_samples"] = 2  # one prediction: runs
    path.write_text(yaml.safe_dump(cfg))
    assert run_cli(["validate", str(path)], capsys)[0] == 0
