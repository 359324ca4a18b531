"""The prequential conformance suite: what a learner run test-then-train must do (River's
``checks`` idea).

``yield_prequential_checks(cls)`` yields ``(name, check)`` pairs chosen by the learner's
task and tags (a binary-only learner is checked on a two-class stream, a regressor on a
linear target, a series learner on an AR(2) series); each check takes a learner class and
a parameter dict and raises ``AssertionError`` on failure. It is the suite of every
learner whose tags name no other (:func:`streamlearn.checks.yield_checks` dispatches);
``tests/checks/test_conformance.py`` runs the suites over the whole registry, so a new
learner is checked without writing a new test.
"""

from __future__ import annotations

import pickle
from collections.abc import Iterator
from typing import Any

import numpy as np

from streamlearn.base import Learner, has_predict_learn_many
from streamlearn.checks.common import Check, described_as, n_differ
from streamlearn.protocols.prequential_loop import PredictionError, checked_predictions
from streamlearn.protocols.user_learner_checks import (
    CHECK_CHUNK,
    CHECK_ROWS,
    CHECK_SEED,
    disagreements,
    global_generators_seeded,
    outside_state,
    state_changes,
)


def _blobs(n: int, d: int, c: int, seed: int) -> tuple[np.ndarray, np.ndarray, int]:
    """A small, learnable classification stream (Gaussian blobs)."""
    rng = np.random.default_rng(seed)
    centers = rng.normal(scale=3.0, size=(c, d))
    y = rng.integers(0, c, n)
    X = np.ascontiguousarray(centers[y] + rng.normal(size=(n, d)))
    return X, y, c


def _linear(n: int, d: int, seed: int) -> tuple[np.ndarray, np.ndarray, None]:
    """A small, learnable regression stream: a linear target with 5 % noise."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = X @ rng.normal(size=d) + 0.05 * rng.normal(size=n)
    return np.ascontiguousarray(X), np.ascontiguousarray(y), None


def _series(n: int, seed: int) -> tuple[np.ndarray, np.ndarray, None]:
    """A univariate AR(2) series as (x_t, x_{t+1}) pairs: column 0 of ``X`` is the series,
    ``y`` the next value, for learners that keep their own delay line."""
    rng = np.random.default_rng(seed)
    x = np.zeros(n + 1)
    for t in range(2, n + 1):
        x[t] = 1.5 * x[t - 1] - 0.75 * x[t - 2] + 0.1 * rng.normal()
    return np.ascontiguousarray(x[:-1, None]), np.ascontiguousarray(x[1:]), None


def check_stream(cls: type, n: int = 120, seed: int = 0) -> tuple[np.ndarray, np.ndarray, Any]:
    """The check stream that suits a learner's tags: a time series (``needs_series``), a
    regression stream, a binary stream (``binary_only``) or a 3-class stream."""
    tags = cls.all_tags()
    if "needs_series" in tags:
        return _series(n, seed)
    if "regression" in tags:
        return _linear(n, 5, seed)
    return _blobs(n, 5, 2 if "binary_only" in tags else 3, seed)


def _random_labels(n: int, d: int, c: int, seed: int) -> tuple[np.ndarray, np.ndarray, int]:
    """A hard classification stream: inputs N(0, 1) and labels drawn at random, apart from
    them, so that what a learner predicts keeps changing as it learns. On the blobs a fused
    path off by one sample (predicting a sample after learning it, or not learning a
    chunk's last row) predicted as the loop did, the classes being too easy to tell apart."""
    rng = np.random.default_rng(seed)
    X = np.ascontiguousarray(rng.normal(size=(n, d)))
    return X, rng.integers(0, c, n), c


def fused_check_stream(cls: type, n: int = CHECK_ROWS,
                       seed: int = 0) -> tuple[np.ndarray, np.ndarray, Any]:
    """The stream on which a fused path is compared with the loop: for classification
    :func:`_random_labels` (a binary one for ``binary_only``); a regression or series
    stream as :func:`check_stream` gives it (a real-valued prediction moves at every
    update already)."""
    tags = cls.all_tags()
    if "needs_series" in tags or "regression" in tags:
        return check_stream(cls, n, seed)
    return _random_labels(n, 5, 2 if "binary_only" in tags else 3, seed)


def _make(cls: type, params: dict[str, Any], d: int, c: int | None) -> Learner:
    learner = cls(**params)
    learner.reset(d, c)
    return learner


def _loop(learner: Learner, X: np.ndarray, y: np.ndarray) -> np.ndarray:
    out = []
    for i in range(X.shape[0]):
        out.append(learner.predict_one(X[i]))
        learner.learn_one(X[i], y[i].item())
    return np.asarray(out)


@described_as("predict_one returns a class index 0..C-1 (an int or integral float) for "
              "classification, a finite float for regression")
def check_predictions_valid(cls: type, params: dict[str, Any]) -> None:
    """The same rule as ``streamlearn run`` (:func:`checked_predictions`): a class index
    ``0..C-1`` (an integral float is accepted), or a finite real target."""
    X, y, c = check_stream(cls)
    learner = _make(cls, params, X.shape[1], c)
    raw: list[Any] = []
    for i in range(X.shape[0]):
        raw.append(learner.predict_one(X[i]))
        learner.learn_one(X[i], y[i].item())
    values = np.empty(len(raw), dtype=object)
    values[:] = raw
    try:
        checked_predictions(values, len(raw), 0, cls.__name__, c is not None, c,
                            method="predict_one")
    except PredictionError as exc:
        raise AssertionError(str(exc)) from None


@described_as("on an easy stream it beats the majority class (classification) or the "
              "target's variance (regression) over the second half")
def check_learns(cls: type, params: dict[str, Any]) -> None:
    """Better than the majority class on easy, well-separated blobs; for regression, a
    mean squared error on the second half below the target's variance there."""
    X, y, c = check_stream(cls, n=1000)
    preds = _loop(_make(cls, params, X.shape[1], c), X, y)
    if c is None:
        mse = float(np.mean((preds[500:] - y[500:]) ** 2))
        assert mse < float(np.var(y[500:])), "does not learn an easy regression stream"
        return
    majority = np.bincount(y).max() / y.size
    assert np.mean(preds[500:] == y[500:]) > majority, "does not learn an easy stream"


@described_as("two learners built with the same parameters (and seed) make the same "
              "predictions")
def check_seeded_reproducible(cls: type, params: dict[str, Any]) -> None:
    # as a run checks it (streamlearn.protocols.user_learner_checks): global generators
    # seeded alike for both, and a prime number of samples, so state the first learner
    # leaves in a class attribute (a counter, a list) shifts the second by no short period
    X, y, c = check_stream(cls, n=CHECK_ROWS)
    state = outside_state(_make(cls, params, X.shape[1], c))
    with global_generators_seeded(CHECK_SEED):
        a = _loop(_make(cls, params, X.shape[1], c), X, y)
    with global_generators_seeded(CHECK_SEED):
        b = _loop(learner := _make(cls, params, X.shape[1], c), X, y)
    after = outside_state(learner)
    changed = state_changes(state, after)
    assert not changed, (f"building and running learners changed {', '.join(changed)}: state "
                         f"shared by every instance, so each run would start from what the "
                         f"runs before it left; keep all state on the instance")
    n = n_differ(a, b)
    assert n == 0, (f"two learners built with the same parameters (and seed) predict "
                    f"differently on {n} of {a.size} samples; keep all state on the "
                    f"instance (not in class attributes or module globals) and draw every "
                    f"random number from a generator seeded by the learner's parameters")


@described_as("predict_one/learn_one (and predict_learn_many) leave x and y unchanged")
def check_inputs_not_mutated(cls: type, params: dict[str, Any]) -> None:
    X, y, c = check_stream(cls, n=40)
    X0, y0 = X.copy(), y.copy()
    learner = _make(cls, params, X.shape[1], c)
    _loop(learner, X, y)
    if has_predict_learn_many(learner):
        learner.predict_learn_many(X, y)
    assert np.array_equal(X, X0, equal_nan=True), "the learner changed x in place"
    assert np.array_equal(y, y0, equal_nan=True), "the learner changed y in place"


@described_as("predict_one on a sample it does not learn leaves the learner as it was (a "
              "held-out sample, a fold that only tests)")
def check_predict_does_not_learn(cls: type, params: dict[str, Any]) -> None:
    """Test-then-train with an extra ``predict_one`` of another sample before every round
    (as the holdout protocol and prequential cross-validation predict samples they do not
    learn) ≡ the plain loop. FORKS had inserted a held-out sample into its sketch on an
    update round and reset its model (hunt of 7 Dec)."""
    X, y, c = fused_check_stream(cls)
    plain = _loop(_make(cls, params, X.shape[1], c), X, y)
    learner = _make(cls, params, X.shape[1], c)
    probed = []
    n = X.shape[0]
    for i in range(n):
        learner.predict_one(X[(7 * i + 3) % n])
        probed.append(learner.predict_one(X[i]))
        learner.learn_one(X[i], y[i].item())
    k = n_differ(plain, np.asarray(probed))
    assert k == 0, (f"predicting a sample it then does not learn changed what the learner "
                    f"predicts: {k} of {n} predictions differ from the plain "
                    f"predict_one/learn_one loop; predict_one must not change the model")


@described_as("a pickled and unpickled learner predicts what the original does (runs in "
              "worker processes need this)")
def check_pickle_roundtrip(cls: type, params: dict[str, Any]) -> None:
    X, y, c = check_stream(cls, n=60)
    learner = _make(cls, params, X.shape[1], c)
    _loop(learner, X[:40], y[:40])
    copy = pickle.loads(pickle.dumps(learner))
    a = [learner.predict_one(X[i]) for i in range(40, 60)]
    b = [copy.predict_one(X[i]) for i in range(40, 60)]
    n = n_differ(a, b)
    assert n == 0, (f"a pickled and unpickled copy predicts differently from the original "
                    f"on {n} of {len(a)} samples; pickling must keep all of the state")


@described_as("predict_learn_many over chunks (short ones, then one long one) gives the "
              "predictions of the predict_one/learn_one loop")
def check_many_equals_loop(cls: type, params: dict[str, Any]) -> None:
    """``predict_learn_many`` over chunks of 37 and over one chunk of all 251 samples ≡ the
    per-sample loop, as a run checks it (``user_learner_checks``): identical predictions,
    a user's regression predictions within ``REGRESSION_RTOL`` (another summation order);
    the library's own learners' exactly. On :func:`fused_check_stream`, where predictions
    keep changing, so that a path off by one sample shows."""
    X, y, c = fused_check_stream(cls)
    loop = _loop(_make(cls, params, X.shape[1], c), X, y)
    for chunk in (CHECK_CHUNK, X.shape[0]):
        learner = _make(cls, params, X.shape[1], c)
        many = np.concatenate([learner.predict_learn_many(X[s:s + chunk], y[s:s + chunk])
                               for s in range(0, X.shape[0], chunk)])
        assert many.shape == loop.shape, (f"predict_learn_many returned {many.size} "
                                          f"predictions for {loop.size} samples")
        own = cls.__module__.split(".")[0] == "streamlearn"
        n = n_differ(loop, many) if own else disagreements(loop, many).size
        assert n == 0, (f"predict_learn_many over chunks of {chunk} predicts differently "
                        f"from the predict_one/learn_one loop on {n} of {loop.size} samples")


@described_as("(tagged scores) last_score_ is finite with the sign of the prediction, and "
              "chunk_scores_ of predict_learn_many equal it")
def check_scores_consistent(cls: type, params: dict[str, Any]) -> None:
    """A learner tagged ``scores``: ``last_score_`` after each ``predict_one`` is finite, its
    sign is the prediction (class 1 above 0, class 0 below), and ``chunk_scores_`` after
    ``predict_learn_many`` over chunks equals the per-sample scores exactly (on
    :func:`fused_check_stream`)."""
    X, y, c = fused_check_stream(cls, n=150)
    learner = _make(cls, params, X.shape[1], c)
    preds, scores = [], []
    for i in range(X.shape[0]):
        preds.append(learner.predict_one(X[i]))
        scores.append(float(learner.last_score_))  # type: ignore[attr-defined]
        learner.learn_one(X[i], y[i].item())
    s, p = np.asarray(scores), np.asarray(preds)
    assert np.all(np.isfinite(s)), "last_score_ is not finite"
    bad = int(np.count_nonzero(((s > 0) & (p != 1)) | ((s < 0) & (p != 0))))
    assert bad == 0, f"the score's sign disagrees with the prediction on {bad} samples"
    if callable(getattr(cls, "predict_learn_many", None)):
        many = _make(cls, params, X.shape[1], c)
        fused = []
        for st in range(0, X.shape[0], 37):
            many.predict_learn_many(X[st:st + 37], y[st:st + 37])  # type: ignore[attr-defined]
            fused.append(np.array(many.chunk_scores_, dtype=np.float64))  # type: ignore[attr-defined]
        fused_s = np.concatenate(fused)
        n = n_differ(s, fused_s)
        if n:
            gap = float(np.nanmax(np.abs(fused_s - s))) if fused_s.shape == s.shape else np.nan
            raise AssertionError(
                f"chunk_scores_ of predict_learn_many differ from last_score_ of the "
                f"per-sample loop on {n} of {s.size} samples (largest difference {gap:.3g}); "
                f"compute each score by the same operations in both paths (the same compiled "
                f"loop, or the same BLAS call with the same shapes): BLAS kernels differ "
                f"between CPUs in how they round sums")


def yield_prequential_checks(cls: type) -> Iterator[tuple[str, Check]]:
    """The prequential checks that apply to a learner class, chosen by its task and tags
    (the checks every learner passes come first: :func:`streamlearn.checks.yield_checks`)."""
    yield "predictions_valid", check_predictions_valid
    if "reference" not in cls.all_tags():  # a label rule: beating the majority is not its job
        yield "learns", check_learns
    yield "seeded_reproducible", check_seeded_reproducible
    yield "inputs_not_mutated", check_inputs_not_mutated
    if "needs_series" not in cls.all_tags():  # a series learner's x is its own last value
        yield "predict_does_not_learn", check_predict_does_not_learn
    yield "pickle_roundtrip", check_pickle_roundtrip
    if callable(getattr(cls, "predict_learn_many", None)):
        yield "many_equals_loop", check_many_equals_loop
    if "scores" in cls.all_tags():
        yield "scores_consistent", check_scores_consistent
