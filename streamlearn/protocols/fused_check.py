"""The run-time check that a learner's fused ``predict_learn_many`` is the protocol's loop.

The prequential protocol is defined by the per-sample loop (predict ``x_k``, then learn
``(x_k, y_k)``); ``predict_learn_many`` is allowed only as a faster way to compute the same
predictions. The library's own learners are held to that by the conformance suite
(:func:`streamlearn.checks.learners.check_many_equals_loop`, every learner, every CI run).
A user's class is not, and a fused path that predicts after learning, skips a chunk's last
sample's update or keeps state across chunks wrongly would give numbers that are not the
protocol's while the run exits 0. So before the timed run, a user's learner runs the run's
own first rows twice on fresh copies, once through the loop and once through
``predict_learn_many`` in chunks of :data:`CHECK_CHUNK` (so chunk boundaries are crossed),
and a disagreement fails the run, naming the first sample that differs.

What it cannot see: a fault that shows only after the checked prefix (e.g. once a budget
fills), and the fused path of a learner that is not reproducible (two loop passes
disagree, so neither path can be judged; the run goes on).
"""

from __future__ import annotations

import numpy as np

from streamlearn.base import Learner, has_predict_learn_many
from streamlearn.protocols.prequential_loop import PredictionError, run_prequential

__all__ = ["CHECK_CHUNK", "REGRESSION_RTOL", "check_fused_matches_loop", "is_library_learner"]

#: chunk size of the fused pass: small and odd, so a short prefix crosses many boundaries
CHECK_CHUNK = 37

#: regression predictions agree when ``|a - b| <= REGRESSION_RTOL * max(1, |a|, |b|)``: a
#: fused path may sum in another order (a BLAS matrix-vector product against per-sample
#: dot products), which moves no printed digit; a class label must agree exactly
REGRESSION_RTOL = 1e-9


def is_library_learner(learner: Learner) -> bool:
    """True for the library's own learners (defined in a ``streamlearn`` module), whose fused
    paths the conformance suite tests; False for a user's class, River's and CapyMOA's."""
    return type(learner).__module__.split(".")[0] == "streamlearn"


def _disagreements(loop: np.ndarray, fused: np.ndarray) -> np.ndarray:
    """Indices where two prediction arrays of the same shape disagree."""
    if loop.dtype.kind == "f" or fused.dtype.kind == "f":
        a, b = loop.astype(np.float64), fused.astype(np.float64)
        scale = np.maximum(1.0, np.maximum(np.abs(a), np.abs(b)))
        return np.flatnonzero(np.abs(a - b) > REGRESSION_RTOL * scale)
    return np.flatnonzero(loop != fused)


def check_fused_matches_loop(learner: Learner, X: np.ndarray, y: np.ndarray, *,
                             n_classes: int | None = None) -> None:
    """Raise :class:`PredictionError` when ``learner``'s ``predict_learn_many`` (over chunks
    of :data:`CHECK_CHUNK`) predicts ``(X, y)`` differently from its
    ``predict_one``/``learn_one`` loop, each on a fresh reset copy (``learner.clone()``).

    ``X``, ``y`` are the run's first rows, as the learner will see them. A learner without
    ``predict_learn_many`` passes. When two loop passes disagree with each other, the
    learner is not reproducible, nothing can be judged, and it passes too.
    """
    n = X.shape[0]
    if n == 0 or not has_predict_learn_many(learner):
        return

    def fresh() -> Learner:
        copy = learner.clone()
        copy.reset(X.shape[1], n_classes)  # type: ignore[attr-defined]
        return copy

    loop = run_prequential(fresh(), X, y, chunk_size=n, use_many=False,
                           n_classes=n_classes).y_pred
    fused = run_prequential(fresh(), X, y, chunk_size=CHECK_CHUNK, use_many=True,
                            n_classes=n_classes).y_pred
    differ = _disagreements(loop, fused)
    if differ.size == 0:
        return
    again = run_prequential(fresh(), X, y, chunk_size=n, use_many=False,
                            n_classes=n_classes).y_pred
    if _disagreements(loop, again).size:
        return  # not reproducible: the fused path cannot be judged against the loop
    i = int(differ[0])
    who = type(learner).__name__
    raise PredictionError(
        f"{who}.predict_learn_many predicts differently from {who}'s predict_one/learn_one "
        f"loop on {differ.size} of the run's first {n} samples (chunks of {CHECK_CHUNK}); "
        f"first at sample {i}: the loop predicts {loop[i].item()!r}, predict_learn_many "
        f"{fused[i].item()!r}. The protocol is the per-sample loop, so this run's numbers "
        f"would not be the protocol's. Make predict_learn_many give the loop's predictions "
        f"(`streamlearn check` runs the same test), or set `evaluation: {{fused: false}}` "
        f"to run the loop.")
