"""Prequential validation over k copies: each copy against an independent loop, metrics
against scikit-learn, the bootstrap weights, refusals."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import accuracy_score, balanced_accuracy_score

from streamlearn import registry
from streamlearn.base import Metric, RunContext
from streamlearn.errors import UserError
from streamlearn.protocols.prequential_classification import PrequentialClassification
from streamlearn.protocols.validation import bootstrap_weights, fold_schedule, parse_validation
from tests.protocols.method_helpers import NearestMean, context, drifting_data


def independent_fold(method, k, f, X, y, n_classes, seed):
    """Copy f of k, written out from the definitions (Bifet et al. 2015 / the issue):
    returns the indices it was tested on and its predictions there."""
    learner = NearestMean()
    learner.reset(X.shape[1], n_classes)
    if method == "bootstrap":
        ss = np.random.SeedSequence(seed).spawn(4)[3].spawn(f + 1)[f]
        weights = np.random.default_rng(ss).poisson(1.0, X.shape[0])
    tested, preds = [], []
    for t in range(X.shape[0]):
        mine = t % k == f
        if method == "cross":
            if mine:
                tested.append(t)
                preds.append(learner.predict_one(X[t]))
            else:
                learner.learn_one(X[t], int(y[t]))
        elif method == "split":
            tested.append(t)
            preds.append(learner.predict_one(X[t]))
            if mine:
                learner.learn_one(X[t], int(y[t]))
        else:
            tested.append(t)
            preds.append(learner.predict_one(X[t]))
            for _ in range(weights[t]):
                learner.learn_one(X[t], int(y[t]))
    return np.array(tested), np.array(preds)


@pytest.mark.parametrize("method", ["cross", "split", "bootstrap"])
def test_each_copy_equals_an_independent_loop(method):
    data = drifting_data(300)
    k, seed = 4, 11
    proto = PrequentialClassification(validation={"method": method, "folds": k})
    accs = []
    for f in range(k):
        result = proto.run(NearestMean(), data, context(fold=f, seed=seed))
        tested, expected = independent_fold(method, k, f, data.X, data.y, 3, seed)
        np.testing.assert_array_equal(result.arrays["y_pred"], expected)
        np.testing.assert_array_equal(result.arrays["y_true"], data.y[tested])
        y_true = data.y[tested]
        assert result.metrics["oca"] == pytest.approx(accuracy_score(y_true, expected))
        assert result.metrics["bacc"] == pytest.approx(
            balanced_accuracy_score(y_true, expected))
        # curves at the global checkpoints: over the tested samples among the first t
        for t, v in zip(result.curves["t"], result.curves["oca"], strict=True):
            among = tested < t
            assert v == pytest.approx(accuracy_score(y_true[among], expected[among]))
        assert result.notes["fold"] == {"method": method, "index": f, "folds": k}
        accs.append(result.metrics["oca"])
    # a deterministic learner on a fixed order: the copies differ
    assert np.std(accs, ddof=1) > 0


def test_bootstrap_weights_are_reproducible_independent_and_poisson():
    a = bootstrap_weights(3, 0, 20_000)
    assert np.array_equal(a, bootstrap_weights(3, 0, 20_000))
    assert not np.array_equal(a, bootstrap_weights(3, 1, 20_000))
    assert not np.array_equal(a, bootstrap_weights(4, 0, 20_000))
    assert abs(a.mean() - 1.0) < 0.03 and abs(a.var() - 1.0) < 0.05
    # the number of copies does not change a copy's draws
    s2 = fold_schedule(parse_validation({"method": "bootstrap", "folds": 2}), 1, 50, 3)
    s5 = fold_schedule(parse_validation({"method": "bootstrap", "folds": 5}), 1, 50, 3)
    assert np.array_equal(s2.learn_order, s5.learn_order)


def test_cross_copies_test_each_sample_once_and_train_it_k_minus_1_times():
    spec = parse_validation({"method": "cross", "folds": 3})
    schedules = [fold_schedule(spec, f, 30, 0) for f in range(3)]
    assert np.array_equal(sum(s.tested.astype(int) for s in schedules), np.ones(30))
    learnt = np.concatenate([s.learn_order for s in schedules])
    assert np.array_equal(np.bincount(learnt, minlength=30), np.full(30, 2))


@pytest.mark.parametrize("value,match", [
    ({"method": "cross", "folds": 1}, "integer >= 2"),
    ({"method": "cross", "folds": True}, "integer >= 2"),
    ({"method": "loo", "folds": 3}, "must be one of"),
    ({"method": "cross"}, "must be a mapping"),
    ("cross", "must be of type"),
])
def test_bad_validation_values_are_refused(value, match):
    with pytest.raises(UserError, match=match):
        PrequentialClassification(validation=value)


def test_fold_count_and_min_samples():
    proto = PrequentialClassification(validation={"method": "split", "folds": 7})
    assert proto.fold_count() == 7
    assert proto.min_samples()[0] == 7
    assert PrequentialClassification().fold_count() is None
    assert PrequentialClassification().min_samples() is None


class _Accuracy(Metric):
    """Accuracy with a windowed form written in plain NumPy (the real metrics' windowed
    forms are tested with the metrics): what the subset scoring maps onto checkpoints."""

    kinds = ("cumulative", "windowed")

    @classmethod
    def curve(cls, y_true, y_pred, at, context):
        hits = np.cumsum(y_true == y_pred)
        return hits[at - 1] / at

    @classmethod
    def windowed_curve(cls, y_true, y_pred, at, window, context):
        hits = y_true == y_pred
        return np.array([hits[max(0, a - window):a].mean() for a in at])


def test_windowed_block_of_a_copy_is_over_its_own_tested_samples(monkeypatch):
    monkeypatch.setitem(registry.METRICS, "t_acc", _Accuracy)
    data = drifting_data(300)
    proto = PrequentialClassification(validation={"method": "cross", "folds": 3})
    ctx = RunContext(metrics=("t_acc",), checkpoints=12, chunk_size=64, fold=1, seed=0,
                     window=20)
    result = proto.run(NearestMean(), data, ctx)
    tested, pred = independent_fold("cross", 3, 1, data.X, data.y, 3, 0)
    hits = data.y[tested] == pred
    block = result.notes["windowed"]
    assert block["window"] == 20 and block["not_supported"] == []
    for t, v in zip(result.curves["t"], block["curves"]["t_acc"], strict=True):
        mine = hits[tested < t]
        assert v == pytest.approx(mine[-20:].mean())
    assert block["metrics"]["t_acc"] == pytest.approx(hits[-20:].mean())



@pytest.mark.parametrize("method", ["cross", "split"])
def test_kappa_references_predict_from_the_stream_not_from_the_fold(method):
    """A fold is scored on a subset of the stream, but kappa_t compares with the no-change
    classifier of the whole stream (the stream's previous label). In cross-validation the
    no-change copy of fold f learns sample t - 1 before it predicts t (t - 1 is another
    fold's), so it IS that reference: kappa_t = 0 exactly in every fold; scored against the
    fold's own previous label (the bug this guards against) it is not."""
    from streamlearn.algorithms.reference import NoChange
    from streamlearn.base import MetricContext
    from streamlearn.metrics.classification import KappaT

    data = drifting_data(300)
    k = 3
    proto = PrequentialClassification(validation={"method": method, "folds": k})
    for f in range(k):
        ctx = RunContext(metrics=("oca", "kappa_t"), checkpoints=10, chunk_size=64,
                         fold=f, seed=0)
        result = proto.run(NoChange(), data, ctx)
        tested = (np.flatnonzero(np.arange(data.y.size) % k == f) if method == "cross"
                  else np.arange(data.y.size))
        reference = np.concatenate([[0], data.y[:-1]])[tested]  # the stream's no change
        y_true, y_pred = data.y[tested], result.arrays["y_pred"]
        code = (y_pred == y_true).astype(int) + 2 * (reference == y_true)
        a, b, none = (code == 1).sum(), (code == 2).sum(), (code == 0).sum()
        expected = (a - b) / (a + none) if a + none else 0.0
        assert result.metrics["kappa_t"] == pytest.approx(expected, abs=1e-15)
        if method == "cross":
            assert result.metrics["kappa_t"] == 0.0
            own = KappaT.curve(y_true, y_pred, np.array([y_true.size]),
                               MetricContext(n_classes=3))[0]
            assert own != 0.0
