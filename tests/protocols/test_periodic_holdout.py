"""Periodic held-out test: against an independent loop (prequential part and each test),
metrics against scikit-learn, fused and per-sample alike, refusals."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.metrics import accuracy_score, balanced_accuracy_score

from streamlearn.components import get_algorithm
from streamlearn.errors import UserError
from streamlearn.protocols.holdout import parse_holdout
from streamlearn.protocols.prequential_classification import PrequentialClassification
from tests.protocols.method_helpers import NearestMean, context, drifting_data


def independent_holdout(learner, X, y, n_classes, every, size):
    """Cycles of ``every`` test-then-train samples and ``size`` held-out ones (complete
    tests only), written out: prequential (index, prediction) pairs and the tests."""
    learner.reset(X.shape[1], n_classes)
    n = X.shape[0]
    preq_idx, preq_pred, tests = [], [], []
    t = 0
    while t < n:
        stop = min(t + every, n)
        for i in range(t, stop):
            preq_idx.append(i)
            preq_pred.append(learner.predict_one(X[i]))
            learner.learn_one(X[i], int(y[i]))
        complete = stop == t + every
        t = stop
        if complete and t + size <= n:
            tests.append((t, [learner.predict_one(X[i]) for i in range(t, t + size)]))
            t += size
    return np.array(preq_idx), np.array(preq_pred), tests


@pytest.mark.parametrize("every,size", [(50, 20), (100, 37), (7, 3)])
def test_holdout_equals_an_independent_loop(every, size):
    data = drifting_data(430)
    result = PrequentialClassification(holdout={"every": every, "size": size}).run(
        NearestMean(), data, context())
    idx, pred, tests = independent_holdout(NearestMean(), data.X, data.y, 3, every, size)
    np.testing.assert_array_equal(result.arrays["index"], idx)
    np.testing.assert_array_equal(result.arrays["y_pred"], pred)
    assert result.metrics["oca"] == pytest.approx(accuracy_score(data.y[idx], pred))
    for t, v in zip(result.curves["t"], result.curves["oca"], strict=True):
        among = idx < t
        assert v == pytest.approx(accuracy_score(data.y[idx][among], pred[among]))
    block = result.notes["holdout"]
    assert block["every"] == every and block["size"] == size
    assert block["curves"]["t"] == [s for s, _ in tests]
    for name, score in (("oca", accuracy_score), ("bacc", balanced_accuracy_score)):
        with warnings.catch_warnings():  # a short test may lack a predicted class
            warnings.simplefilter("ignore", UserWarning)
            values = [score(data.y[s:s + size], p) for s, p in tests]
        assert block["curves"][name] == pytest.approx(values)
        assert block["metrics"][name] == pytest.approx(np.mean(values))
    # held-out samples are never learnt: the learner's counts are the prequential part's
    assert len(idx) + len(tests) * size == 430


def test_fused_and_per_sample_paths_agree():
    data = drifting_data(500)
    runs = [PrequentialClassification(holdout={"every": 80, "size": 40}).run(
        get_algorithm("rls")(), data, context(fused=fused)) for fused in (True, False)]
    assert runs[0].timing["fused"] and not runs[1].timing["fused"]
    np.testing.assert_array_equal(runs[0].arrays["y_pred"], runs[1].arrays["y_pred"])
    np.testing.assert_array_equal(runs[0].arrays["holdout_pred"],
                                  runs[1].arrays["holdout_pred"])


def test_test_starts():
    spec = parse_holdout({"every": 10, "size": 5})
    assert spec.test_starts(45).tolist() == [10, 25, 40]
    assert spec.test_starts(44).tolist() == [10, 25]
    assert spec.test_starts(14).tolist() == []
    assert spec.held_out(30).sum() == 10


@pytest.mark.parametrize("value", [{"every": 0, "size": 5}, {"every": 5}, {"every": 5,
                                   "size": 2.0}, {"every": 5, "size": 2, "x": 1}])
def test_bad_holdout_values_are_refused(value):
    with pytest.raises(UserError, match="holdout"):
        PrequentialClassification(holdout=value)


def _kappa(p0: float, pr: float) -> float:
    return 0.0 if pr == 1.0 else (p0 - pr) / (1.0 - pr)


@pytest.mark.parametrize("seed", [0, 1])
def test_held_out_kappas_take_their_reference_from_the_stream_s_past(seed):
    """Each held-out test's kappa_m and kappa_t: the reference (majority class, no change)
    predicts each test sample from the stream's labels before it, as in the prequential
    part. Each test's reference had started from nothing: on an all-1 stream the
    majority class learner scored 100 % held-out kappa_m (hunt of 7 Dec), not 0."""
    rng = np.random.default_rng(seed)
    data = drifting_data(430, seed=seed, n_classes=4)
    ctx = context()
    ctx.metrics = ("oca", "kappa_m", "kappa_t")
    result = PrequentialClassification(holdout={"every": 50, "size": 20}).run(
        NearestMean(), data, ctx)
    _, _, tests = independent_holdout(NearestMean(), data.X, data.y, 4, 50, 20)
    y = data.y
    majority = [int(np.argmax(np.bincount(y[:i], minlength=4))) if i else 0
                for i in range(len(y))]
    previous = [int(y[i - 1]) if i else 0 for i in range(len(y))]
    block = result.notes["holdout"]
    for name, ref in (("kappa_m", majority), ("kappa_t", previous)):
        values = []
        for s, pred in tests:
            truth = y[s:s + 20]
            values.append(_kappa(float(np.mean(np.asarray(pred) == truth)),
                                 float(np.mean(np.asarray(ref[s:s + 20]) == truth))))
        assert block["curves"][name] == pytest.approx(values, abs=1e-12)
    # the reference learners themselves score 0 on a stream of one class but two samples
    y1 = np.ones(100, dtype=np.int64)
    y1[[3, 5]] = 0
    ones = type(data)(X=rng.normal(size=(100, 2)), y=y1, info={"label": "ones"},
                      n_classes=2)
    for learner in ("majority_class", "no_change"):
        out = PrequentialClassification(holdout={"every": 20, "size": 10}).run(
            get_algorithm(learner)(), ones, ctx)
        assert out.notes["holdout"]["metrics"]["kappa_m"] == 0.0
        assert out.notes["holdout"]["metrics"]["kappa_t"] == 0.0
