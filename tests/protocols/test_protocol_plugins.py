"""Protocols, learners, streams and metrics registered from outside the package run end to
end through `streamlearn run` without any change to the runner: a toy prequential
regression protocol (it runs the series learners another protocol introduced), and a toy
protocol that grows a network on a fixed train/test split and introduces its own learner
tag, with that tag's conformance suite, in this module alone: the other protocols refuse
its learners, and `streamlearn check` runs its suite on them."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pytest
import yaml

from streamlearn import components, registry
from streamlearn.base import (
    LEARNER_TAGS,
    Learner,
    LearnerTag,
    Metric,
    MetricContext,
    PreparedData,
    Protocol,
    Regressor,
    RunContext,
    RunResult,
    Stream,
    StreamInfo,
)
from streamlearn.checks import run_checks, yield_checks
from streamlearn.checks.common import Check, described_as
from streamlearn.params import Interval
from streamlearn.protocols.preparation import Preparation, prepare_stream, shift_target
from streamlearn.protocols.scoring import checkpoint_positions, score_curves
from tests.cli_helpers import run_cli

# ---------------------------------------------------------------- a regression protocol


class ToySeries(Stream):
    """A noisy sine wave as a univariate series (``X[:, 0] = y = x_t``)."""

    task = "regression"
    natural_order = True

    def __init__(self, *, n_samples: int = 400, seed: int | None = 0) -> None:
        self.n_samples = n_samples
        self.seed = seed

    def _load(self) -> tuple[np.ndarray, np.ndarray]:
        rng = np.random.default_rng(self.seed)
        x = np.sin(np.arange(self.n_samples) / 5.0) + 0.05 * rng.normal(size=self.n_samples)
        return x[:, None], x

    def info(self) -> StreamInfo:
        return StreamInfo("ToySeries", "regression", self.n_samples, 1, None)


class LastValue(Regressor):
    """Predicts the last value seen (a persistence forecast), optionally damped."""

    tags = frozenset({"needs_series"})

    _constraints: ClassVar[dict] = {"damping": Interval(0.0, 1.0)}

    def __init__(self, *, damping: float = 1.0) -> None:
        self.damping = damping
        self._validate_params()

    def reset(self, n_features: int, n_classes: int | None) -> None:
        self.last_ = 0.0

    def predict_one(self, x: np.ndarray) -> float:
        return self.damping * float(x[0])

    def learn_one(self, x: np.ndarray, y: Any) -> None:
        self.last_ = float(y)


class ToyRegressionProtocol(Protocol):
    """Predict x_{t+1} from x_t (the target shift as a preparation step), then learn it."""

    task = "regression"
    default_metrics = ("mse",)
    default_curve_metric = "mse"
    #: it feeds x_t alone, so it runs the series learners of prequential-regression too
    accepts_tags = frozenset({"needs_series"})
    _constraints: ClassVar[dict] = {"horizon": Interval(1, None, integer=True)}

    def __init__(self, *, horizon: int = 1) -> None:
        self.horizon = horizon
        self._validate_params()

    def prepare(self, stream_cfg: Any, seed: int, data_dir: str | None) -> PreparedData:
        base = prepare_stream(stream_cfg, seed, data_dir)
        inputs, targets = shift_target(base.X[:, 0], self.horizon)
        return PreparedData(X=inputs[:, None], y=targets, info=base.info, n_classes=None)

    def run(self, learner: Learner, data: PreparedData, ctx: RunContext) -> RunResult:
        learner.reset(1, None)
        y_pred = np.empty(data.y.size)
        for t in range(data.y.size):
            y_pred[t] = learner.predict_one(data.X[t])
            learner.learn_one(data.X[t], data.y[t])
        at = checkpoint_positions(data.y.size, ctx.checkpoints)
        metrics, curves = score_curves(ctx.metrics, data.y, y_pred, at,
                                       MetricContext(X=data.X))
        return RunResult(metrics=metrics, curves=curves,
                         timing={"per_sample_seconds": float("nan"),
                                 "per_sample_learn_seconds": float("nan")},
                         arrays={"y_pred": y_pred})


# ---------------------------------------------------------------- a split protocol


class GrowingCentroids(Learner):
    """Adds one class-centroid 'node' per step from the training split (a stand-in for a
    network that grows on a fixed split)."""

    tags = frozenset({"adds_centroids"})

    def __init__(self, *, seed: int | None = None) -> None:
        self.seed = seed

    def reset(self, n_features: int, n_classes: int | None) -> None:
        self.sums_ = np.zeros((n_classes or 2, n_features))
        self.counts_ = np.zeros(n_classes or 2)

    def add_node(self, x: np.ndarray, y: int) -> None:
        self.sums_[y] += x
        self.counts_[y] += 1

    def predict_many(self, X: np.ndarray) -> np.ndarray:
        cent = self.sums_ / np.maximum(self.counts_, 1)[:, None]
        d = ((X[:, None, :] - cent[None]) ** 2).sum(-1)
        d[:, self.counts_ == 0] = np.inf
        return np.argmin(d, axis=1)


class TestAccuracyPerUpdate(Metric):
    """Test-set accuracy after each added node (reads the protocol's extra array)."""

    label = "Test acc."
    unit = "%"
    scale = 100.0
    precision = 2
    notation = "fixed"
    requires = ("test_accuracy",)

    @classmethod
    def curve(cls, y_true: np.ndarray, y_pred: np.ndarray, at: np.ndarray,
              context: MetricContext) -> np.ndarray:
        return context.get("test_accuracy")[np.asarray(at) - 1]


class ToySplitProtocol(Protocol):
    """Grow on the training split, score the test split after every update."""

    task = "classification"
    default_metrics = ("test_accuracy_per_update",)
    default_curve_metric = "test_accuracy_per_update"
    requires_tags = frozenset({"adds_centroids"})
    introduces_tags: ClassVar[dict[str, LearnerTag]] = {
        "adds_centroids": LearnerTag(
            "grows by one class centroid per training sample of a fixed split",
            refusal="it adds centroids on a fixed split; use the toy-split protocol",
            checks=f"{__name__}:yield_centroid_checks"),
    }
    provides = frozenset({"X", "test_accuracy"})
    _constraints: ClassVar[dict] = {"n_test": Interval(1, None, integer=True)}

    def __init__(self, *, n_test: int = 100, updates: int = 50) -> None:
        self.n_test = n_test
        self.updates = updates
        self._validate_params()

    def prepare(self, stream_cfg: Any, seed: int, data_dir: str | None) -> PreparedData:
        # the shared preparation splits; the stream's max_samples caps each part
        return prepare_stream(stream_cfg, seed, data_dir,
                              Preparation(split="holdout", n_test=self.n_test,
                                          cap_after="split"))

    def run(self, learner: Learner, data: PreparedData, ctx: RunContext) -> RunResult:
        learner.reset(data.X.shape[1], data.n_classes)
        k = min(self.updates, data.X.shape[0])
        acc = np.empty(k)
        for i in range(k):
            learner.add_node(data.X[i], int(data.y[i]))  # type: ignore[attr-defined]
            pred = learner.predict_many(data.extra["X_test"])  # type: ignore[attr-defined]
            acc[i] = np.mean(pred == data.extra["y_test"])
        at = checkpoint_positions(k, ctx.checkpoints)
        context = MetricContext(n_classes=data.n_classes, extra={"test_accuracy": acc})
        metrics, curves = score_curves(ctx.metrics, data.y[:k], data.y[:k], at, context)
        return RunResult(metrics=metrics, curves=curves, curve_axis="nodes added",
                         timing={"per_sample_seconds": float("nan"),
                                 "per_sample_learn_seconds": float("nan")})


@described_as("after one sample of each class, it predicts the class of each sample added")
def check_predicts_added_samples(cls: type, params: dict) -> None:
    learner = cls(**params)
    learner.reset(2, 2)
    X = np.array([[0.0, 0.0], [5.0, 5.0]])
    for x, y in zip(X, (0, 1), strict=True):
        learner.add_node(x, y)
    pred = learner.predict_many(X).tolist()
    assert pred == [0, 1], f"predicted {pred} for the samples of classes [0, 1]"


def yield_centroid_checks(cls: type) -> Iterator[tuple[str, Check]]:
    """The conformance suite of learners tagged ``adds_centroids`` (named by the tag)."""
    yield "predicts_added_samples", check_predicts_added_samples


class SwappedCentroids(GrowingCentroids):
    """Adds each sample to the other class's centroid (fails the toy suite)."""

    def add_node(self, x: np.ndarray, y: int) -> None:
        super().add_node(x, 1 - y)


@pytest.fixture(scope="module", autouse=True)
def _registered():
    """Register the toy components the way a user's own module would, then remove them."""
    components.load_all()
    added = [
        (registry.STREAMS, "toy_series", registry.register_stream, ToySeries),
        (registry.ALGORITHMS, "last_value", registry.register_algorithm, LastValue),
        (registry.ALGORITHMS, "growing_centroids", registry.register_algorithm,
         GrowingCentroids),
        (registry.METRICS, "test_accuracy_per_update", registry.register_metric,
         TestAccuracyPerUpdate),
        (registry.PROTOCOLS, "toy-regression", registry.register_protocol,
         ToyRegressionProtocol),
        (registry.PROTOCOLS, "toy-split", registry.register_protocol, ToySplitProtocol),
    ]
    for _, name, register, obj in added:
        register(name)(obj)
    yield
    for table, name, _, obj in added:
        table.pop(name, None)
        del obj.registry_name  # unregistered: its tags leave LEARNER_TAGS


def _run(tmp_path: Path, cfg: dict, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return run_cli(["run", str(path), "--out", str(tmp_path / "out"), "-q"], capsys)


def _records(tmp_path: Path) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted((tmp_path / "out" / "runs").glob("*.json"))]


def test_toy_regression_protocol_runs_end_to_end(tmp_path, capsys):
    cfg = {"name": "toyreg", "protocol": {"name": "toy-regression", "params": {"horizon": 1}},
           "repeats": 2, "streams": [{"name": "toy_series", "label": "sine", "reseed": False}],
           "algorithms": [{"name": "last_value", "label": "persist",
                           "sweep": {"damping": [1.0, 0.5]}}],
           "metrics": ["mse", "mae"], "evaluation": {"checkpoints": 10}}
    rc, text = _run(tmp_path, cfg, capsys)
    assert rc == 0, text
    recs = _records(tmp_path)
    assert len(recs) == 4 and all(r["status"] == "ok" for r in recs)
    x = ToySeries().to_arrays()[1]
    for r in recs:
        damping = r["spec"]["algorithm"]["params"]["damping"]
        expected = float(np.mean((damping * x[:-1] - x[1:]) ** 2))
        assert r["metrics"]["mse"] == pytest.approx(expected, rel=1e-12)
        assert r["metric_info"]["mse"]["notation"] == "general"
    # the MSE is small: the table must not print it as 0.0
    mse = next(r for r in recs
               if r["spec"]["algorithm"]["params"]["damping"] == 1.0)["metrics"]["mse"]
    table = (tmp_path / "out" / "summary.md").read_text()
    assert mse < 0.05 and f"| persist damping=1 | {mse:.4g} ± 0 |" in table
    assert table.rstrip().endswith("| 2 |")  # runs counted from the records


def test_toy_split_protocol_runs_end_to_end(tmp_path, capsys):
    cfg = {"name": "toysplit", "protocol": {"name": "toy-split", "params": {"n_test": 200}},
           "streams": [{"name": "sea", "label": "SEA", "params": {"n_samples": 1000}}],
           "algorithms": [{"name": "growing_centroids", "label": "centroids"}],
           "evaluation": {"checkpoints": 5}}
    rc, text = _run(tmp_path, cfg, capsys)
    assert rc == 0, text
    (rec,) = _records(tmp_path)
    assert rec["status"] == "ok" and rec["curve_axis"] == "nodes added"
    curve = rec["curves"]["test_accuracy_per_update"]
    assert len(curve) == 5 and 0.5 < curve[-1] <= 1.0
    assert rec["stream_info"]["n_samples"] == 800 and rec["stream_info"]["n_test"] == 200


def test_protocols_refuse_learners_by_tag(tmp_path, capsys):
    """Every other protocol refuses a learner tagged with what toy-split introduced, in the
    words toy-split declared (no other protocol names the tag); toy-split refuses learners
    without it, and the tags other protocols introduced."""
    cfg = {"name": "mismatch", "streams": [{"name": "sea", "params": {"n_samples": 300}}],
           "algorithms": [{"name": "growing_centroids"}]}
    refusal = ("cannot run algorithm 'growing_centroids': it is tagged 'adds_centroids' "
               "(grows by one class centroid per training sample of a fixed split): it adds "
               "centroids on a fixed split; use the toy-split protocol")
    for protocol in ("prequential-classification", "incremental-nodes"):
        rc, text = _run(tmp_path, {**cfg, "protocol": protocol}, capsys)
        assert rc == 2 and refusal in " ".join(text.split()), text
    cfg = {**cfg, "protocol": "toy-split", "algorithms": [{"name": "rls"}]}
    rc, text = _run(tmp_path, cfg, capsys)
    assert rc == 2 and "needs learners tagged 'adds_centroids'" in " ".join(text.split())
    cfg = {**cfg, "algorithms": [{"name": "bls_chol2"}]}
    rc, text = _run(tmp_path, cfg, capsys)
    assert rc == 2 and ("it is tagged 'grows_on_split' (grows its structure on a fixed "
                        "train/test split, not prequentially): it grows on a fixed "
                        "train/test split; use a split protocol") in " ".join(text.split())
    assert not (tmp_path / "out").exists()


def test_a_protocol_runs_only_the_tags_it_introduces_requires_or_accepts():
    class Strict(ToyRegressionProtocol):
        accepts_tags = frozenset()

    assert ToyRegressionProtocol().incompatibility(LastValue) is None
    assert Strict().incompatibility(LastValue) == (
        "it is tagged 'needs_series' (reads a univariate time series (it keeps its own "
        "delay line)): it reads a time series; use a time-series protocol")


def test_registered_protocols_declare_the_learner_tags():
    assert LEARNER_TAGS["adds_centroids"] == ("grows by one class centroid per training "
                                              "sample of a fixed split")
    assert {"binary_only", "regression", "scores", "needs_series", "grows_on_split"} <= set(
        LEARNER_TAGS)


def test_protocol_parameters_are_validated(tmp_path, capsys):
    cfg = {"name": "badparam", "protocol": {"name": "toy-split", "params": {"n_tset": 5}},
           "streams": ["sea"], "algorithms": ["growing_centroids"]}
    rc, text = _run(tmp_path, cfg, capsys)
    assert rc == 2 and "n_test" in text and "protocol.params" in text


def test_metric_needing_context_the_protocol_lacks(tmp_path, capsys):
    cfg = {"name": "ctx", "streams": [{"name": "sea", "params": {"n_samples": 300}}],
           "algorithms": ["rls"], "metrics": ["oca", "test_accuracy_per_update"]}
    rc, text = _run(tmp_path, cfg, capsys)
    assert rc == 2 and "test_accuracy" in text and "does not provide" in text


@pytest.mark.parametrize("cls", [LastValue, GrowingCentroids])
def test_conformance_checks_follow_tags(cls):
    names = [n for n, _ in yield_checks(cls)]
    for _name, check in yield_checks(cls):
        check(cls, {})
    if cls is GrowingCentroids:  # the suite its protocol named, not the prequential one
        assert names == ["docstring", "params_roundtrip", "tags_known",
                         "predicts_added_samples"]
    else:
        assert "learns" in names


def test_check_command_runs_the_suite_a_plugin_protocol_names(capsys):
    rc, text = run_cli(["check", "growing_centroids"], capsys)
    out = " ".join(text.split())
    assert rc == 0, out
    assert ("PASS predicts_added_samples: after one sample of each class, it predicts the "
            "class of each sample added") in out
    assert "growing_centroids: 4 of 4 checks passed." in out
    rc, text = run_cli(["check", f"{__name__}:SwappedCentroids"], capsys)
    out = " ".join(text.split())
    assert rc == 1 and "FAIL predicts_added_samples" in out
    assert "problem: predicted [1, 0] for the samples of classes [0, 1]" in out
    assert [r.ok for r in run_checks(SwappedCentroids)] == [True, True, True, False]


def test_shift_target_predicts_the_next_value():
    series = np.arange(10.0)
    x, y = shift_target(series, 1)
    assert np.array_equal(y, x + 1) and x.base is series  # views, no copy
    x2, y2 = shift_target(series, 3)
    assert np.array_equal(y2, x2 + 3)


def test_binary_only_learner_gets_a_binary_check_stream():
    from streamlearn.checks.learners import check_stream

    class Binary(Learner):
        """binary"""

        tags = frozenset({"binary_only"})

    _, y, c = check_stream(Binary)
    assert c == 2 and set(np.unique(y)) == {0, 1}
