"""Conformance checks every registered learner must pass (River's ``checks`` idea).

``yield_checks(cls)`` yields ``(name, check)`` pairs; each check takes a learner class and a
parameter dict and raises ``AssertionError`` on failure. ``tests/test_conformance.py`` runs
them over the whole registry, so a new learner is checked without writing a new test.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from streamlearn.base import Learner, has_predict_learn_many

Check = Callable[[type, dict[str, Any]], None]


def _stream(n: int = 120, d: int = 5, c: int = 3, seed: int = 0) -> tuple[np.ndarray, ...]:
    """A small, learnable classification stream (Gaussian blobs)."""
    rng = np.random.default_rng(seed)
    centers = rng.normal(scale=3.0, size=(c, d))
    y = rng.integers(0, c, n)
    X = np.ascontiguousarray(centers[y] + rng.normal(size=(n, d)))
    return X, y, c


def _make(cls: type, params: dict[str, Any], d: int, c: int) -> Learner:
    learner = cls(**params)
    learner.reset(d, c)
    return learner


def _loop(learner: Learner, X: np.ndarray, y: np.ndarray) -> np.ndarray:
    out = []
    for i in range(X.shape[0]):
        out.append(learner.predict_one(X[i]))
        learner.learn_one(X[i], int(y[i]))
    return np.asarray(out)


def check_has_docstring(cls: type, params: dict[str, Any]) -> None:
    assert (cls.__doc__ or "").strip(), f"{cls.__name__} has no docstring"


def check_params_roundtrip(cls: type, params: dict[str, Any]) -> None:
    learner = cls(**params)
    got = learner.get_params()
    for k, v in params.items():
        assert got[k] == v, f"get_params()[{k!r}] = {got[k]!r}, expected {v!r}"
    assert learner.clone().get_params() == got


def check_predictions_valid(cls: type, params: dict[str, Any]) -> None:
    X, y, c = _stream()
    preds = _loop(_make(cls, params, X.shape[1], c), X, y)
    assert np.issubdtype(preds.dtype, np.integer), f"predictions are {preds.dtype}"
    assert preds.min() >= 0 and preds.max() < c


def check_learns(cls: type, params: dict[str, Any]) -> None:
    """Better than the majority class on easy, well-separated blobs."""
    X, y, c = _stream(n=1000)
    preds = _loop(_make(cls, params, X.shape[1], c), X, y)
    majority = np.bincount(y).max() / y.size
    assert np.mean(preds[500:] == y[500:]) > majority, "does not learn an easy stream"


def check_seeded_reproducible(cls: type, params: dict[str, Any]) -> None:
    X, y, c = _stream()
    a = _loop(_make(cls, params, X.shape[1], c), X, y)
    b = _loop(_make(cls, params, X.shape[1], c), X, y)
    np.testing.assert_array_equal(a, b)


def check_inputs_not_mutated(cls: type, params: dict[str, Any]) -> None:
    X, y, c = _stream(n=40)
    X0, y0 = X.copy(), y.copy()
    learner = _make(cls, params, X.shape[1], c)
    _loop(learner, X, y)
    if has_predict_learn_many(learner):
        learner.predict_learn_many(X, y)
    np.testing.assert_array_equal(X, X0)
    np.testing.assert_array_equal(y, y0)


def check_pickle_roundtrip(cls: type, params: dict[str, Any]) -> None:
    X, y, c = _stream(n=60)
    learner = _make(cls, params, X.shape[1], c)
    _loop(learner, X[:40], y[:40])
    copy = pickle.loads(pickle.dumps(learner))
    a = [learner.predict_one(X[i]) for i in range(40, 60)]
    b = [copy.predict_one(X[i]) for i in range(40, 60)]
    assert a == b


def check_many_equals_loop(cls: type, params: dict[str, Any]) -> None:
    """``predict_learn_many`` over chunks ≡ the per-sample loop (identical predictions)."""
    X, y, c = _stream(n=150)
    loop = _loop(_make(cls, params, X.shape[1], c), X, y)
    learner = _make(cls, params, X.shape[1], c)
    many = np.concatenate([learner.predict_learn_many(X[s:s + 37], y[s:s + 37])
                           for s in range(0, X.shape[0], 37)])
    np.testing.assert_array_equal(loop, many)


def yield_checks(cls: type) -> Iterator[tuple[str, Check]]:
    yield "docstring", check_has_docstring
    yield "params_roundtrip", check_params_roundtrip
    if cls.task == "classification":
        yield "predictions_valid", check_predictions_valid
        yield "learns", check_learns
    yield "seeded_reproducible", check_seeded_reproducible
    yield "inputs_not_mutated", check_inputs_not_mutated
    yield "pickle_roundtrip", check_pickle_roundtrip
    if callable(getattr(cls, "predict_learn_many", None)):
        yield "many_equals_loop", check_many_equals_loop
