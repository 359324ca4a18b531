"""The fused-versus-per-sample check shared by the kernel learners' tests."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np


def assert_fused_equals_loop(make: Callable[[], Any], X: np.ndarray, y: np.ndarray,
                             chunk: int) -> tuple[Any, Any]:
    """Two fresh learners from ``make()``: ``a`` runs the per-sample loop (its round score,
    then ``learn_one``), ``b`` runs ``predict_learn_many`` in chunks of ``chunk``. Asserts
    equal scores and predictions bit for bit and returns ``(a, b)`` for further checks of
    their state."""
    a, b = make(), make()
    a.reset(X.shape[1], 2)
    b.reset(X.shape[1], 2)
    loop_scores = []
    for i in range(len(y)):
        loop_scores.append(a._round_score(X[i]))
        a.learn_one(X[i], y[i])
    many, many_scores = [], []
    for s in range(0, len(y), chunk):
        many.append(b.predict_learn_many(X[s:s + chunk], y[s:s + chunk]))
        many_scores.append(b.chunk_scores_)
    np.testing.assert_array_equal(np.concatenate(many_scores), loop_scores)
    np.testing.assert_array_equal(np.concatenate(many),
                                  np.where(np.array(loop_scores) >= 0, 1, 0))
    return a, b
