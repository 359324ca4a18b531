"""Delayed labels: River's semantics against an independent queue, the plain run for
delay 0 and 1 (fused and per-sample), per-sample delay and moment columns, refusals."""

from __future__ import annotations

import bisect

import numpy as np
import pytest
from sklearn.metrics import accuracy_score, balanced_accuracy_score

from streamlearn.components import get_algorithm
from streamlearn.errors import UserError
from streamlearn.protocols.delayed_labels import delay_schedule, parse_delay
from streamlearn.protocols.prequential_classification import PrequentialClassification
from tests.protocols.method_helpers import NearestMean, context, drifting_data


def river_delayed(learner, X, y, n_classes, moment=None, delay=None):
    """River's simulate_qa + progressive_val_score, written out: at each step reveal (and
    learn) the queued labels whose expiry <= now, oldest expiry first, then queue the
    current sample and predict it; learn the leftovers at the end. ``moment``/``delay``:
    per-sample arrays, or ``None`` (the index / 0)."""
    learner.reset(X.shape[1], n_classes)
    queue: list[tuple[float, int]] = []  # kept sorted by expiry, ties in arrival order
    preds = {}
    for i in range(X.shape[0]):
        t = i if moment is None else moment[i]
        d = 0 if delay is None else delay[i]
        while queue and queue[0][0] <= t:
            _, j = queue.pop(0)
            learner.learn_one(X[j], int(y[j]))
        bisect.insort(queue, (t + d, i))
        preds[i] = learner.predict_one(X[i])
    for _, j in queue:
        learner.learn_one(X[j], int(y[j]))
    return np.array([preds[i] for i in range(X.shape[0])])


@pytest.mark.parametrize("d", [2, 3, 17, 150])
def test_fixed_delay_equals_an_independent_delayed_loop(d):
    data = drifting_data(400)
    proto = PrequentialClassification(delay=d)
    result = proto.run(NearestMean(), data, context())
    expected = river_delayed(NearestMean(), data.X, data.y, 3,
                             delay=np.full(400, d))
    np.testing.assert_array_equal(result.arrays["y_pred"], expected)
    assert result.metrics["oca"] == pytest.approx(accuracy_score(data.y, expected))
    assert result.metrics["bacc"] == pytest.approx(balanced_accuracy_score(data.y, expected))
    # the curve at each checkpoint is the accuracy of the first t predictions
    for t, v in zip(result.curves["t"], result.curves["oca"], strict=True):
        assert v == pytest.approx(accuracy_score(data.y[:t], expected[:t]))
    assert result.notes["delay"] == d
    assert result.timing["fused"] is False
    # a delay loses information: not the plain run's predictions
    plain = PrequentialClassification().run(NearestMean(), data, context())
    assert not np.array_equal(plain.arrays["y_pred"], result.arrays["y_pred"])


@pytest.mark.parametrize("name", ["rls", "hoeffding_tree"])
@pytest.mark.parametrize("fused", [True, False])
def test_delay_0_and_1_are_the_plain_run_bit_for_bit(name, fused):
    data = drifting_data(300)
    cls = get_algorithm(name)
    plain = PrequentialClassification().run(cls(), data, context(fused=fused))
    for d in (0, 1):
        delayed = PrequentialClassification(delay=d).run(cls(), data, context(fused=fused))
        assert delayed.metrics == plain.metrics
        assert delayed.curves == plain.curves
        np.testing.assert_array_equal(delayed.arrays["y_pred"], plain.arrays["y_pred"])
        assert delayed.timing["fused"] == plain.timing["fused"]
    # River's semantics: delay 0 and 1 both learn sample t before predicting t + 1
    expected = river_delayed(cls(), data.X, data.y, 3, delay=np.zeros(300))
    np.testing.assert_array_equal(plain.arrays["y_pred"], expected)


def test_per_sample_delay_column_equals_river():
    data = drifting_data(300, seed=4)
    rng = np.random.default_rng(1)
    delays = rng.integers(0, 40, 300).astype(float)
    X = np.column_stack([data.X, delays])
    data.X = X
    result = PrequentialClassification(delay={"column": 2}).run(NearestMean(), data, context())
    # River with the delay popped out of x: the learner does not see the delay column
    expected = river_delayed(NearestMean(), X[:, :2], data.y, 3, delay=delays)
    np.testing.assert_array_equal(result.arrays["y_pred"], expected)
    assert result.notes["delay"] == {"column": 2}


def test_moment_and_delay_columns_equal_river():
    data = drifting_data(300, seed=5)
    rng = np.random.default_rng(2)
    moments = np.cumsum(rng.exponential(1.0, 300))  # irregular arrival times
    moments[50:53] = moments[50]  # ties in time
    delays = rng.uniform(0.0, 15.0, 300)
    delays[::7] = 0.0
    X = np.column_stack([moments, data.X, delays])
    data.X = X
    proto = PrequentialClassification(delay={"column": 3, "moment": 0})
    result = proto.run(NearestMean(), data, context())
    # the moment stays a feature, the delay is popped out of x
    expected = river_delayed(NearestMean(), X[:, :3], data.y, 3, moment=moments,
                             delay=delays)
    np.testing.assert_array_equal(result.arrays["y_pred"], expected)


def test_schedule_learns_every_label_once():
    X = np.column_stack([np.arange(50.0), np.random.default_rng(0).integers(0, 9, 50)])
    for spec in (parse_delay(5), parse_delay({"column": 1}), parse_delay(60)):
        s = delay_schedule(spec, X)
        assert sorted(s.learn_order.tolist()) == list(range(50))
        # never learnt before the step after its own sample
        when = np.empty(50, dtype=int)
        for j in range(50):
            lo = s.learn_before[j - 1] if j else 0
            when[s.learn_order[lo:s.learn_before[j]]] = j
        learnt = s.learn_order[:s.learn_before[-1]]
        assert np.all(when[learnt] > learnt)


@pytest.mark.parametrize("value,match", [
    (-1, "integer >= 0"),
    (2.5, "must be of type"),
    ({"col": 1}, "takes 'column'"),
    ({"column": -2}, "0-based feature index"),
    ({"column": 1, "moment": 1.5}, "0-based feature index"),
])
def test_bad_delay_values_are_refused(value, match):
    with pytest.raises(UserError, match=match):
        PrequentialClassification(delay=value)


def test_bad_delay_columns_are_refused_with_the_sample():
    data = drifting_data(100)
    X = np.column_stack([data.X, np.r_[np.zeros(10), -3.0, np.zeros(89)]])
    with pytest.raises(UserError, match=r"sample 10 the delay -3\.0"):
        delay_schedule(parse_delay({"column": 2}), X, label="s")
    with pytest.raises(UserError, match="out of range"):
        delay_schedule(parse_delay({"column": 5}), X, label="s")
    with pytest.raises(UserError, match="no feature names"):
        delay_schedule(parse_delay({"column": "lag"}), X, label="s")
    ok = np.abs(X)
    assert delay_schedule(parse_delay({"column": "lag"}), ok, names=["a", "b", "lag"],
                          label="s").learn_order.size == 100
    back = ok.copy()
    back[:, 0] = np.arange(100.0)
    back[40, 0] = 1.0
    with pytest.raises(UserError, match="goes back in time at sample 40"):
        delay_schedule(parse_delay({"column": 2, "moment": 0}), back, label="s")


def test_only_one_method_at_a_time():
    with pytest.raises(UserError, match="cannot be combined"):
        PrequentialClassification(delay=3, holdout={"every": 10, "size": 5})


def test_a_delay_column_with_a_scaled_stream_is_refused_at_validation(tmp_path, capsys):
    """Hunt 7 (7 Dec): the delay column was read after `normalize: minmax`, so every delay
    was below one sample and the run was the plain run, exit 0 (no-change OCA 0.90
    against River's 0.48); a z-score made negative 'delays' the file does not have."""
    import yaml

    from tests.cli_helpers import run_cli

    rows = ["m,delay,v,label"] + [f"{i},{(i * 7) % 25}.5,{i % 3},{i % 3}" for i in range(60)]
    (tmp_path / "s.csv").write_text("\n".join(rows) + "\n")
    cfg = {"name": "d", "protocol": {"name": "prequential-classification",
                                     "params": {"delay": {"column": 1}}},
           "streams": [{"name": "csv", "label": "S", "normalize": "minmax",
                        "params": {"path": str(tmp_path / "s.csv"), "target": "label"}}],
           "algorithms": [{"name": "no_change"}], "metrics": ["oca"],
           "outputs": {"dir": str(tmp_path / "out")}}
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(cfg))
    rc, text = run_cli(["run", str(path), "-q"], capsys)
    assert rc == 2, text
    assert "normalize: minmax would scale the delay column" in " ".join(text.split())
    assert not (tmp_path / "out").exists()
    cfg["streams"][0]["normalize"] = "none"  # the same stream unscaled runs
    path.write_text(yaml.safe_dump(cfg))
    rc, text = run_cli(["run", str(path), "-q"], capsys)
    assert rc == 0, text


def _delay_column_config(tmp_path, *streams: tuple[str, list[float]]) -> dict:
    """A config of CSV streams (label, per-row delays) under ``delay: {column: 1}``."""
    entries = []
    for label, delays in streams:
        rows = ["x,lag,label"] + [f"{i % 7}.5,{d},{i % 2}" for i, d in enumerate(delays)]
        (tmp_path / f"{label}.csv").write_text("\n".join(rows) + "\n")
        entries.append({"name": "csv", "label": label,
                        "params": {"path": str(tmp_path / f"{label}.csv"), "target": "label"}})
    return {"name": "d", "protocol": {"name": "prequential-classification",
                                      "params": {"delay": {"column": 1}}},
            "streams": entries, "algorithms": [{"name": "no_change"}], "metrics": ["oca"],
            "outputs": {"dir": str(tmp_path / "out"), "plots": []}}


def test_a_bad_delay_column_value_is_refused_before_anything_is_written(tmp_path, capsys):
    """Fixes A (1): a negative delay in a delay column was found by each run's own
    preparation: `--backend processes` wrote the runs of the streams before it and then
    stopped (exit 2, half-written), `validate` said valid, and Dask failed the runs on
    its workers (exit 1). The column's values are now checked before anything is
    written, by `validate` and by `run` on every backend (tests/evaluation/
    test_dask_backend.py)."""
    import yaml

    from tests.cli_helpers import run_cli

    bad = [3.0] * 40
    bad[25] = -2.0
    cfg = _delay_column_config(tmp_path, ("Good", [3.0] * 40), ("Bad", bad))
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(cfg))
    rc, text = run_cli(["validate", str(path)], capsys)
    assert rc == 2, text
    assert "the delay column gives sample 25 the delay -2.0" in " ".join(text.split())
    for jobs in ("1", "2"):
        rc, text = run_cli(["run", str(path), "-q", "--jobs", jobs], capsys)
        flat = " ".join(text.split())
        assert rc == 2, text
        assert "Stream 'Bad': the delay column gives sample 25 the delay -2.0" in flat
        assert "Nothing was run." in flat and "Traceback" not in text
        assert not (tmp_path / "out").exists()
    cfg["streams"] = cfg["streams"][:1]
    path.write_text(yaml.safe_dump(cfg))
    rc, text = run_cli(["run", str(path), "-q"], capsys)
    assert rc == 0, text


def test_a_delay_column_is_named_by_the_csv_header_and_is_not_a_feature(tmp_path, capsys):
    """Fixes A (2): a CSV's header names were not the stream's feature names, so
    `delay: {column: lag}` (named like `target: label`) stopped with "Stream 'S' has no
    feature names" (exit 2); and `delay: {column: 1}` left the delay among the learner's
    features: with delays that give the class away (class 1 verified 30 samples later)
    RLS read the label off the delay column. The header names the column (ARFF attribute
    names too), and the delay column is taken out of the features like the target."""
    import json

    import yaml

    from tests.cli_helpers import run_cli

    rng = np.random.default_rng(0)
    labels = rng.integers(0, 2, 300)
    rows = ["x,lag,label"] + [f"{rng.normal():.4f},{3 + 30 * c},{c}" for c in labels]
    (tmp_path / "s.csv").write_text("\n".join(rows) + "\n")
    arff = ["@relation s", "@attribute x numeric", "@attribute lag numeric",
            "@attribute label {0,1}", "@data", *rows[1:]]
    (tmp_path / "s.arff").write_text("\n".join(arff) + "\n")
    metrics = {}
    for fmt, column in (("csv", "lag"), ("csv", 1), ("arff", "lag")):
        cfg = {"name": "d", "protocol": {"name": "prequential-classification",
                                         "params": {"delay": {"column": column}}},
               "streams": [{"name": fmt, "label": "S",
                            "params": {"path": str(tmp_path / f"s.{fmt}"),
                                       "target": "label"}}],
               "algorithms": [{"name": "rls", "label": "RLS"}], "metrics": ["oca"],
               "outputs": {"dir": str(tmp_path / f"out_{fmt}_{column}"), "plots": []}}
        path = tmp_path / "c.yaml"
        path.write_text(yaml.safe_dump(cfg))
        rc, text = run_cli(["run", str(path), "-q"], capsys)
        assert rc == 0, text
        rec = json.loads((tmp_path / f"out_{fmt}_{column}" / "runs" /
                          "S__RLS__seed0.json").read_text())
        assert rec["stream_info"]["n_features"] == 1
        assert rec["stream_info"]["runner_preprocessing"] == [
            "delay column 'lag' (feature 1) read and removed from the features"]
        metrics[fmt, column] = rec["metrics"]["oca"]
    # one column, named or by index; x is noise, so the class is a guess (with the delay
    # among the features RLS had OCA 0.93)
    assert len(set(metrics.values())) == 1
    assert metrics["csv", 1] < 0.7


def test_a_delay_column_name_the_stream_lacks_lists_its_features(tmp_path):
    from streamlearn.config import StreamConfig
    from streamlearn.datasets.files import CSVStream
    from streamlearn.protocols.delayed_labels import take_delay_columns
    from streamlearn.protocols.preparation import prepare_stream

    (tmp_path / "s.csv").write_text("a,b,label\n1,2,0\n3,4,1\n5,6,0\n")
    (tmp_path / "n.csv").write_text("1,2,0\n3,4,1\n5,6,0\n")
    assert CSVStream(path=str(tmp_path / "s.csv")).info().feature_names == ("a", "b")
    assert CSVStream(path=str(tmp_path / "n.csv")).info().feature_names is None

    scfg = StreamConfig(name="csv", label="S",
                        params={"path": str(tmp_path / "s.csv"), "target": "label"})
    data = prepare_stream(scfg, 0, None)
    assert data.feature_names == ("a", "b")
    with pytest.raises(UserError, match=r"has no feature 'lag'\. Features: a, b"):
        take_delay_columns(parse_delay({"column": "lag"}), data, "S")
    taken = take_delay_columns(parse_delay({"column": "a"}), data, "S")
    assert taken.feature_names == ("b",) and taken.X.tolist() == [[2.0], [4.0], [6.0]]
    assert taken.extra["delay"].tolist() == [1.0, 3.0, 5.0]
    assert data.X.shape == (3, 2)  # the cached preparation is unchanged
