"""The prequential (test-then-train) engine.

For every sample ``k`` the learner first predicts ``x_k`` with the model of samples
``< k``, then learns ``(x_k, y_k)``. The stream is processed in chunks: a learner with
``predict_learn_many`` runs each chunk in one (compiled) call that keeps this order
inside; otherwise the engine loops over ``predict_one``/``learn_one``. Either way a chunk is
timed whole; in the per-sample loop one sample in :data:`TIMED_EVERY` is also timed call
by call, and the predict/learn split of the total is estimated from those samples (clock
reads around every call cost ~0.3 µs per sample on the 2-core VM, 6 % of a 5 µs learner).

Learners see read-only views of ``X`` and ``y`` (:func:`read_only`): one learner cannot
change the data the next learner on the same stream sees, and a learner that tries fails
its run. Every prediction is checked (:class:`PredictionError`): a class label must be an
integer in ``0..C-1`` (an integral float is accepted), a regression target a finite real
number; the per-sample loop checks the values' types per chunk (one C-level pass, then
value by value only when a type is not a plain int or float) and every chunk's range in
one vectorised pass, the fused path checks its output array per chunk.
"""

from __future__ import annotations

import numbers
import time
from collections.abc import Callable
from dataclasses import dataclass
from itertools import islice
from typing import Any

import numpy as np

from streamlearn.base import Learner, has_predict_learn_many


class PredictionError(ValueError):
    """A learner returned something that is not a prediction (``None``, NaN, a label out of
    range, a non-integral class, an array of the wrong shape): its run fails."""


def read_only(a: np.ndarray) -> np.ndarray:
    """A view of ``a`` that cannot be written through (``a`` itself is not changed; no copy)."""
    view = np.asarray(a).view()
    view.flags.writeable = False
    return view


#: Types a per-sample prediction may have without a closer look (the common ones).
_FAST_TYPES = {
    "classification": frozenset({int, np.int64, np.int32, np.intp}),
    "regression": frozenset({float, np.float64}),
}


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _expected(classification: bool, n_classes: int | None) -> str:
    if not classification:
        return "a finite real number was expected"
    if n_classes is None:
        return "a class label (an integer >= 0) was expected"
    return f"a class label (an integer in 0..{n_classes - 1}) was expected"


def _as_prediction(value: Any, classification: bool) -> int | float | None:
    """``value`` as a label (int) or a target (float); ``None`` when it is neither."""
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if isinstance(value, bool | np.bool_):
        return int(value) if classification else None
    if classification:
        if isinstance(value, numbers.Integral):
            return int(value)
        if isinstance(value, numbers.Real):
            f = float(value)
            return int(f) if f.is_integer() else None  # NaN and inf are not integers
        return None
    if isinstance(value, numbers.Real):
        return float(value)
    return None


def _check_values(seg: np.ndarray, start: int, who: str, classification: bool,
                  n_classes: int | None) -> None:
    """Raise :class:`PredictionError` for the first out-of-range label (or non-finite
    target) of ``seg``, whose first entry is sample ``start``; vectorised."""
    if seg.size == 0:
        return
    if classification:
        if seg.min() >= 0 and (n_classes is None or seg.max() < n_classes):
            return
        bad = (seg < 0) if n_classes is None else ((seg < 0) | (seg >= n_classes))
    else:
        if np.isfinite(seg).all():
            return
        bad = ~np.isfinite(seg)
    k = int(np.flatnonzero(bad)[0])
    raise PredictionError(f"{who} predicted {seg[k].item()!r} for sample {start + k}: "
                          f"{_expected(classification, n_classes)}")


def checked_predictions(out: Any, m: int, start: int, who: str, classification: bool,
                        n_classes: int | None, method: str = "predict_learn_many",
                        ) -> np.ndarray:
    """The predictions a learner's ``method`` returned for ``m`` samples from ``start``,
    checked (shape ``(m,)``, numbers of the right kind, in range) and as int64 labels or
    float64 targets; :class:`PredictionError` names the first bad one."""
    arr = np.asarray(out)
    if arr.shape != (m,):
        raise PredictionError(
            f"{who}.{method} returned {type(out).__name__} of shape "
            f"{arr.shape} for the {m} samples from sample {start}; an array of shape "
            f"({m},) was expected.")
    kind = arr.dtype.kind
    if kind in "iub" or (kind == "f" and not classification):
        conv = arr
    elif kind == "f":  # classification: integral floats only
        integral = np.isfinite(arr) & (arr == np.trunc(arr))
        if not integral.all():
            k = int(np.flatnonzero(~integral)[0])
            raise PredictionError(f"{who} predicted {arr[k].item()!r} for sample {start + k}"
                                  f": {_expected(classification, n_classes)}")
        conv = arr
    else:  # objects, strings, complex: value by value, naming the first bad one
        values = [_as_prediction(v, classification) for v in arr.tolist()]
        bad = next((i for i, v in enumerate(values) if v is None), None)
        if bad is not None:
            raise PredictionError(f"{who} predicted {_shown(arr[bad])} for sample "
                                  f"{start + bad}: {_expected(classification, n_classes)}")
        conv = np.asarray(values)
    conv = conv.astype(np.int64 if classification else np.float64, copy=False)
    _check_values(conv, start, who, classification, n_classes)
    return conv


#: The per-sample loop times the samples whose index (in the whole run) is a multiple of
#: this: two clock reads per sample cost ~0.3 µs here, 6 % of a 5 µs learner (issue 25
#: item 3). A prime stride counted over the run, not per chunk, so a learner's periodic
#: step (a refresh every 100 samples, a buffer flush every 64) is timed in its own share:
#: only a period that is a multiple of 31 would be sampled unevenly.
TIMED_EVERY = 31


def _per_sample_chunk(predict_one: Callable[[Any], Any], learn_one: Callable[[Any, Any], Any],
                      learner: Any, Xc: np.ndarray, labels: list[Any], preds: list[Any],
                      stamps: list[float], score_list: list[float] | None,
                      clock: Callable[[], float], first: int) -> None:
    """Test-then-train over one chunk, one sample at a time: predictions appended to
    ``preds``; for the chunk's sample ``first`` and every :data:`TIMED_EVERY`-th after it,
    the clock before ``predict_one``, after it and after ``learn_one`` appended to
    ``stamps``; ``learner.last_score_`` after each sample to ``score_list`` when given."""
    put_pred, put_stamp = preds.append, stamps.append
    rows = zip(Xc, labels, strict=True)

    def untimed(k: int) -> None:
        if score_list is None:
            for xi, yi in islice(rows, k):
                put_pred(predict_one(xi))
                learn_one(xi, yi)
        else:
            for xi, yi in islice(rows, k):
                put_pred(predict_one(xi))
                learn_one(xi, yi)
                score_list.append(learner.last_score_)

    untimed(first)
    rest = TIMED_EVERY - 1
    for xi, yi in rows:
        a = clock()
        p = predict_one(xi)
        b = clock()
        learn_one(xi, yi)
        e = clock()
        put_pred(p)
        put_stamp(a)
        put_stamp(b)
        put_stamp(e)
        if score_list is not None:
            score_list.append(learner.last_score_)
        untimed(rest)


def _checked_list(preds: list[Any], fast_types: frozenset[type], start: int, who: str,
                  classification: bool, n_classes: int | None) -> list[Any]:
    """``preds`` when every value has a fast type; else each converted, and
    :class:`PredictionError` for the first that is not a prediction (after an earlier
    out-of-range value, which is named first)."""
    if fast_types.issuperset(map(type, preds)):
        return preds
    out: list[Any] = []
    for p in preds:
        q = p if type(p) in fast_types else _as_prediction(p, classification)
        if q is None:
            i = len(out)
            earlier = np.asarray(out, dtype=np.int64 if classification else np.float64)
            _check_values(earlier, start, who, classification, n_classes)
            raise PredictionError(f"{who} predicted {_shown(p)} for sample {start + i}: "
                                  f"{_expected(classification, n_classes)}")
        out.append(q)
    return out


@dataclass
class PrequentialOutput:
    """Predictions and timings of one prequential pass."""

    y_pred: np.ndarray
    predict_seconds: float  # total time in predict_one (NaN when fused)
    learn_seconds: float  # total time in learn_one (NaN when fused)
    total_seconds: float  # wall time of the chunks (the learner calls and the loop around them)
    chunk_seconds: np.ndarray  # per chunk: the learner calls and the loop around them
    chunk_sizes: np.ndarray
    fused: bool  # True when predict_learn_many was used
    per_sample_seconds: np.ndarray | None = None  # predict+learn of the timed samples
    scores: np.ndarray | None = None  # per-round real scores (``record_scores``)
    timed_every: int | None = None  # per-sample loop: every how many samples one is timed


def run_prequential(
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
    timed: list[np.ndarray] = []  # per-sample loop: predict + learn of the timed samples
    scores = np.empty(n, dtype=np.float64) if record_scores else None
    t_pred = 0.0
    t_learn = 0.0
    clock = time.perf_counter
    predict_one, learn_one = learner.predict_one, learner.learn_one
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
            # Per sample: the learner's two calls and one list append; the clock is read
            # at the chunk's ends and, for every TIMED_EVERY-th sample of the run only,
            # around each call (the predict/learn split and the per-sample distribution are
            # estimated from those). The predictions' types are checked per chunk, in C, before the
            # list becomes an array (a non-fast type takes the value-by-value path).
            preds: list[Any] = []
            stamps: list[float] = []
            score_list: list[float] | None = [] if scores is not None else None
            t0 = clock()
            _per_sample_chunk(predict_one, learn_one, learner, Xc, yc.tolist(), preds,
                              stamps, score_list, clock, -start % TIMED_EVERY)
            chunk_seconds[c] = clock() - t0
            y_pred[lo:lo + stop - start] = _checked_list(
                preds, fast_types, start, who, classification, n_classes)
            if scores is not None and score_list is not None:
                scores[start:stop] = score_list
            ts = np.asarray(stamps, dtype=np.float64).reshape(-1, 3)
            timed.append(ts[:, 2] - ts[:, 0])
            t_pred += float(np.sum(ts[:, 1] - ts[:, 0]))
            t_learn += float(np.sum(ts[:, 2] - ts[:, 1]))
            _check_values(y_pred[lo:lo + stop - start], start, who, classification,
                          n_classes)
        chunk_sizes[c] = stop - start
        if on_predictions is not None:
            on_predictions(start, y_pred[lo:lo + stop - start])
        if on_chunk is not None:
            on_chunk(stop)
    total = float(chunk_seconds.sum())
    if fused:
        predict_seconds = learn_seconds = float("nan")
    else:
        # the timed samples' shares of predict and learn, applied to the measured total
        share = t_pred / (t_pred + t_learn) if t_pred + t_learn > 0 else 0.5
        predict_seconds, learn_seconds = total * share, total * (1.0 - share)
    return PrequentialOutput(
        y_pred=y_pred if keep_predictions else y_pred[:0],
        predict_seconds=predict_seconds,
        learn_seconds=learn_seconds,
        total_seconds=total,
        chunk_seconds=chunk_seconds,
        chunk_sizes=chunk_sizes,
        fused=fused,
        per_sample_seconds=None if fused else (np.concatenate(timed) if timed else np.empty(0)),
        scores=scores,
        timed_every=None if fused else TIMED_EVERY,
    )


@dataclass(frozen=True)
class Schedule:
    """When a per-sample run predicts and learns what, as arrays (the evaluation methods of
    :mod:`~streamlearn.protocols.delayed_labels` and
    :mod:`~streamlearn.protocols.validation` are schedules).

    At step ``j`` the learner first learns the samples
    ``learn_order[learn_before[j - 1]:learn_before[j]]`` (``learn_before[-1]`` read as 0),
    in that order, then predicts sample ``j`` when ``tested[j]``; after the last step it
    learns the rest of ``learn_order``. A sample may be learnt several times (a bootstrap
    weight), later than its own step (a delayed label) or never.
    """

    tested: np.ndarray  # bool (n,)
    learn_order: np.ndarray  # int64 sample indices
    learn_before: np.ndarray  # int64 (n,), non-decreasing, <= learn_order.size

    def __post_init__(self) -> None:
        n = self.tested.shape[0]
        if self.learn_before.shape != (n,):
            raise ValueError("learn_before must have one entry per sample")
        if n and (np.any(np.diff(self.learn_before) < 0) or self.learn_before[0] < 0
                  or self.learn_before[-1] > self.learn_order.size):
            raise ValueError("learn_before must be non-decreasing within learn_order")

    @classmethod
    def test_then_train(cls, tested: np.ndarray, learn_count: np.ndarray) -> Schedule:
        """Sample ``t`` is predicted (when ``tested[t]``), then learnt ``learn_count[t]``
        times, before sample ``t + 1`` is predicted."""
        counts = np.asarray(learn_count, dtype=np.int64)
        order = np.repeat(np.arange(counts.size, dtype=np.int64), counts)
        # learnt before step j: every repetition of samples < j
        before = np.concatenate(([0], np.cumsum(counts)[:-1])).astype(np.int64)
        return cls(np.asarray(tested, dtype=bool), order, before[:counts.size])


def run_scheduled(
    learner: Learner,
    X: np.ndarray,
    y: np.ndarray,
    schedule: Schedule,
    *,
    chunk_size: int = 1000,
    on_chunk: Callable[[int], None] | None = None,
    n_classes: int | None = None,
) -> PrequentialOutput:
    """Run a reset ``learner`` over ``(X, y)`` as ``schedule`` says, one sample at a time
    (``predict_one``/``learn_one``; a fused ``predict_learn_many`` cannot interleave a
    schedule). The output's ``y_pred`` holds the predictions of the tested samples, in
    stream order; timings are per step (the learning before it and its prediction).
    Predictions are checked as in :func:`run_prequential`."""
    X, y = read_only(X), read_only(y)
    n = X.shape[0]
    who = type(learner).__name__
    classification = learner.task == "classification"
    fast_types = _FAST_TYPES["classification" if classification else "regression"]
    tested = schedule.tested.tolist()
    order = schedule.learn_order.tolist()
    before = schedule.learn_before.tolist()
    y_list = y.tolist()
    y_pred = np.empty(int(schedule.tested.sum()),
                      dtype=np.int64 if classification else np.float64)
    n_chunks = max(1, -(-n // chunk_size))
    chunk_seconds = np.zeros(n_chunks)
    chunk_sizes = np.zeros(n_chunks, dtype=np.int64)
    per_sample = np.empty(n, dtype=np.float64)
    predict_one, learn_one = learner.predict_one, learner.learn_one
    clock = time.perf_counter
    t_pred = t_learn = 0.0
    done = 0  # position in learn_order
    k = 0  # predictions so far
    for c, start in enumerate(range(0, n, chunk_size)):
        stop = min(start + chunk_size, n)
        k0 = k
        c_pred = c_learn = 0.0
        for j in range(start, stop):
            t0 = clock()
            upto = before[j]
            while done < upto:
                i = order[done]
                learn_one(X[i], y_list[i])
                done += 1
            t1 = clock()
            if tested[j]:
                p = predict_one(X[j])
                t2 = clock()
                if type(p) not in fast_types:
                    q = _as_prediction(p, classification)
                    if q is None:
                        _check_values(y_pred[k0:k], k0, who, classification, n_classes)
                        raise PredictionError(
                            f"{who} predicted {_shown(p)} for sample {j}: "
                            f"{_expected(classification, n_classes)}")
                    p = q
                y_pred[k] = p
                k += 1
            else:
                t2 = t1
            c_learn += t1 - t0
            c_pred += t2 - t1
            per_sample[j] = t2 - t0
        _check_values(y_pred[k0:k], start, who, classification, n_classes)
        t_pred += c_pred
        t_learn += c_learn
        chunk_seconds[c] = c_pred + c_learn
        chunk_sizes[c] = stop - start
        if on_chunk is not None:
            on_chunk(stop)
    t0 = clock()
    for i in order[done:]:  # labels that arrive after the last prediction
        learn_one(X[i], y_list[i])
    tail = clock() - t0
    t_learn += tail
    if n:
        chunk_seconds[-1] += tail
    return PrequentialOutput(
        y_pred=y_pred,
        predict_seconds=t_pred,
        learn_seconds=t_learn,
        total_seconds=float(chunk_seconds.sum()),
        chunk_seconds=chunk_seconds,
        chunk_sizes=chunk_sizes,
        fused=False,
        per_sample_seconds=per_sample,
    )
