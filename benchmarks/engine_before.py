"""The prequential engine's loop as it was before issue 25 item 3 (commit f0a354c), kept
verbatim for the before/after A/B of ``benchmarks/bench_runner.py`` in one process.

Not used by streamlearn. The current loop is
:func:`streamlearn.protocols.prequential_loop.run_prequential`; this copy differs from it
only in the per-sample branch (numpy item stores per sample, ``yc[i].item()``, the running
sums), and produces the same predictions.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from streamlearn.base import Learner, has_predict_learn_many
from streamlearn.protocols.prequential_loop import (
    _FAST_TYPES,
    PredictionError,
    PrequentialOutput,
    _as_prediction,
    _check_values,
    _expected,
    _shown,
    checked_predictions,
    read_only,
)


def run_prequential_before(
    learner: Learner,
    X: np.ndarray,
    y: np.ndarray,
    *,
    chunk_size: int = 1000,
    use_many: bool = True,
    on_chunk: Callable[[int], None] | None = None,
    record_scores: bool = False,
    on_predictions: Callable[[int, np.ndarray], None] | None = None,
    keep_predictions: bool = True,
    n_classes: int | None = None,
) -> PrequentialOutput:
    """Run ``learner`` test-then-train over ``(X, y)``; the learner must be ``reset``.

    Parameters
    ----------
    learner
        A reset learner.
    X, y
        Float64 features ``(n, d)`` and labels/targets ``(n,)``.
    chunk_size
        Samples per chunk (progress granularity; the unit of ``predict_learn_many``).
    use_many
        Use ``predict_learn_many`` when the learner has it.
    on_chunk
        Called with the number of samples finished after each chunk.
    record_scores
        Also collect each round's real score from a learner tagged ``"scores"``
        (``chunk_scores_`` after a fused chunk, ``last_score_`` after ``predict_one``;
        read outside the timed calls).
    on_predictions
        Called after each chunk (outside the timed calls) with the chunk's first sample
        index and its predictions, e.g. to accumulate metrics while streaming.
    keep_predictions
        ``False``: do not hold the whole prediction array (one chunk's worth is reused;
        ``y_pred`` of the output is then empty), so that memory does not grow with ``n``;
        the predictions reach the caller through ``on_predictions`` only.
    n_classes
        Number of classes (classification): a predicted label outside ``0..n_classes-1``
        fails the run; ``None``: only negative labels do.

    Raises
    ------
    PredictionError
        A prediction that is not a label in range (classification) or a finite number
        (regression), naming the learner, the sample and the value.
    """
    X, y = read_only(X), read_only(y)
    n = X.shape[0]
    who = type(learner).__name__
    classification = learner.task == "classification"
    fast_types = _FAST_TYPES["classification" if classification else "regression"]
    dtype = np.int64 if classification else np.float64
    y_pred = np.empty(n if keep_predictions else min(n, chunk_size), dtype=dtype)
    fused = use_many and has_predict_learn_many(learner)
    # optional: ``predict_learn_into(X, y, out)`` is ``predict_learn_many`` writing into the
    # engine's own prediction array (no per-chunk array, no copy; on a 1e7-sample series
    # with an O(M) learner those were ~7 % of the learner's time)
    into = getattr(learner, "predict_learn_into", None) if fused else None
    n_chunks = max(1, -(-n // chunk_size))
    chunk_seconds = np.zeros(n_chunks)
    chunk_sizes = np.zeros(n_chunks, dtype=np.int64)
    per_sample = None if fused else np.empty(n, dtype=np.float64)
    scores = np.empty(n, dtype=np.float64) if record_scores else None
    t_pred = 0.0
    t_learn = 0.0
    clock = time.perf_counter
    for c, start in enumerate(range(0, n, chunk_size)):
        stop = min(start + chunk_size, n)
        Xc, yc = X[start:stop], y[start:stop]
        # where this chunk's predictions go: the whole array, or the reused chunk buffer
        lo = start if keep_predictions else 0
        if fused and into is not None:
            t0 = clock()
            into(Xc, yc, y_pred[lo:lo + stop - start])
            chunk_seconds[c] = clock() - t0
            _check_values(y_pred[lo:lo + stop - start], start, who, classification,
                          n_classes)
        elif fused:
            t0 = clock()
            out = learner.predict_learn_many(Xc, yc)  # type: ignore[attr-defined]
            chunk_seconds[c] = clock() - t0
            y_pred[lo:lo + stop - start] = checked_predictions(
                out, stop - start, start, who, classification, n_classes)
            if scores is not None:
                scores[start:stop] = learner.chunk_scores_  # type: ignore[attr-defined]
        else:
            predict_one, learn_one = learner.predict_one, learner.learn_one
            assert per_sample is not None
            c_pred = c_learn = 0.0
            for i in range(stop - start):
                xi = Xc[i]
                yi = yc[i].item()
                t0 = clock()
                p = predict_one(xi)
                t1 = clock()
                learn_one(xi, yi)
                t2 = clock()
                if type(p) not in fast_types:
                    q = _as_prediction(p, classification)
                    if q is None:
                        _check_values(y_pred[lo:lo + i], start, who, classification,
                                      n_classes)  # an earlier bad value is named first
                        raise PredictionError(
                            f"{who} predicted {_shown(p)} for sample {start + i}: "
                            f"{_expected(classification, n_classes)}")
                    p = q
                y_pred[lo + i] = p
                if scores is not None:
                    scores[start + i] = learner.last_score_  # type: ignore[attr-defined]
                c_pred += t1 - t0
                c_learn += t2 - t1
                per_sample[start + i] = t2 - t0
            t_pred += c_pred
            t_learn += c_learn
            chunk_seconds[c] = c_pred + c_learn
            _check_values(y_pred[lo:lo + stop - start], start, who, classification,
                          n_classes)
        chunk_sizes[c] = stop - start
        if on_predictions is not None:
            on_predictions(start, y_pred[lo:lo + stop - start])
        if on_chunk is not None:
            on_chunk(stop)
    return PrequentialOutput(
        y_pred=y_pred if keep_predictions else y_pred[:0],
        predict_seconds=float("nan") if fused else t_pred,
        learn_seconds=float("nan") if fused else t_learn,
        total_seconds=float(chunk_seconds.sum()),
        chunk_seconds=chunk_seconds,
        chunk_sizes=chunk_sizes,
        fused=fused,
        per_sample_seconds=per_sample,
        scores=scores,
    )
