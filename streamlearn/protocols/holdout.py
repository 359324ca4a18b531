"""Periodic held-out test (MOA's ``EvaluatePeriodicHeldOutTest`` idea, on the stream
itself): the ``holdout`` parameter of the ``prequential-classification`` protocol::

    holdout: {every: p, size: h}

The stream is read in cycles: ``p`` samples test-then-train, then the model (trained on
everything learnt so far) is tested on the next ``h`` samples, which are never learnt and
are not part of the prequential metrics; then the stream resumes. Only complete tests are
made: after the last one that fits, the rest of the stream is test-then-train. Test ``c``
starts at stream position ``c (p + h) + p``: the record's holdout curve is at those
positions (samples seen before the test, held-out ones included, the axis of the
prequential curves), its value the metric over the test's ``h`` predictions, and the
summary value the mean over the tests.

The test-then-train segments keep the fused ``predict_learn_many`` path; the held-out
samples go through ``predict_one``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from streamlearn.base import Learner, MetricContext
from streamlearn.components import get_metric
from streamlearn.errors import UserError
from streamlearn.metrics.classification import stream_subset_extra
from streamlearn.protocols.prequential_loop import (
    PrequentialOutput,
    checked_predictions,
    read_only,
    run_prequential,
)

__all__ = ["HoldoutSpec", "parse_holdout", "run_with_holdout", "scored_predictions"]


@dataclass(frozen=True)
class HoldoutSpec:
    """A parsed ``holdout`` parameter."""

    every: int
    size: int

    def test_starts(self, n: int) -> np.ndarray:
        """Stream positions where the complete tests of an ``n``-sample stream start."""
        return np.arange(self.every, n - self.size + 1, self.every + self.size,
                         dtype=np.int64)

    def held_out(self, n: int) -> np.ndarray:
        """Bool mask of the held-out samples."""
        mask = np.zeros(n, dtype=bool)
        for s in self.test_starts(n):
            mask[s:s + self.size] = True
        return mask


def parse_holdout(value: Any) -> HoldoutSpec | None:
    """The ``holdout`` parameter as a :class:`HoldoutSpec` (``None``: no held-out test);
    a :class:`UserError` names what is wrong."""
    if value is None:
        return None
    ok = (isinstance(value, dict) and set(value) == {"every", "size"}
          and all(isinstance(value[k], int) and not isinstance(value[k], bool)
                  and value[k] >= 1 for k in ("every", "size")))
    if not ok:
        raise UserError("The 'holdout' parameter must be a mapping {every: p, size: h} of "
                        f"integers >= 1. Got {value!r} instead.")
    return HoldoutSpec(value["every"], value["size"])


def _merge(parts: list[PrequentialOutput], classification: bool) -> PrequentialOutput:
    """One output from the outputs of consecutive test-then-train segments."""
    if not parts:
        dtype = np.int64 if classification else np.float64
        return PrequentialOutput(np.empty(0, dtype=dtype), 0.0, 0.0, 0.0, np.zeros(0),
                                 np.zeros(0, dtype=np.int64), False)
    fused = parts[0].fused
    return PrequentialOutput(
        y_pred=np.concatenate([p.y_pred for p in parts]),
        predict_seconds=float(sum(p.predict_seconds for p in parts)),
        learn_seconds=float(sum(p.learn_seconds for p in parts)),
        total_seconds=float(sum(p.total_seconds for p in parts)),
        chunk_seconds=np.concatenate([p.chunk_seconds for p in parts]),
        chunk_sizes=np.concatenate([p.chunk_sizes for p in parts]),
        fused=fused,
        per_sample_seconds=None if fused else np.concatenate(
            [p.per_sample_seconds for p in parts if p.per_sample_seconds is not None]),
        timed_every=parts[0].timed_every,
    )


def run_with_holdout(
    learner: Learner,
    X: np.ndarray,
    y: np.ndarray,
    spec: HoldoutSpec,
    *,
    chunk_size: int = 1000,
    use_many: bool = True,
    on_chunk: Callable[[int], None] | None = None,
    n_classes: int | None = None,
) -> tuple[PrequentialOutput, list[np.ndarray]]:
    """Test-then-train on the samples that are not held out, and the predictions of each
    held-out test (by the model of everything learnt before it). Returns the prequential
    output (predictions of the non-held-out samples, in stream order) and one prediction
    array per test."""
    X, y = read_only(X), read_only(y)
    n = X.shape[0]
    who = type(learner).__name__
    classification = learner.task == "classification"
    parts: list[PrequentialOutput] = []
    tests: list[np.ndarray] = []
    pos = 0

    def segment(a: int, b: int) -> None:
        if b <= a:
            return
        progress = None if on_chunk is None else (lambda k: on_chunk(a + k))
        parts.append(run_prequential(learner, X[a:b], y[a:b], chunk_size=chunk_size,
                                     use_many=use_many, on_chunk=progress,
                                     n_classes=n_classes))

    for start in spec.test_starts(n).tolist():
        segment(pos, start)
        stop = start + spec.size
        predict_one = learner.predict_one
        raw = [predict_one(X[i]) for i in range(start, stop)]
        tests.append(checked_predictions(np.asarray(raw, dtype=object), spec.size, start,
                                         who, classification, n_classes,
                                         method="predict_one"))
        pos = stop
        if on_chunk is not None:
            on_chunk(stop)
    segment(pos, n)
    return _merge(parts, classification), tests


def holdout_block(spec: HoldoutSpec, metrics: tuple[str, ...], X: np.ndarray,
                  y: np.ndarray, tests: list[np.ndarray],
                  n_classes: int | None) -> dict[str, Any]:
    """The record's ``holdout`` block: each test's value of every metric (a curve at the
    samples seen before the test) and their mean."""
    starts = spec.test_starts(X.shape[0])
    curves: dict[str, list[float]] = {"t": starts.tolist()}
    finals: dict[str, float] = {}
    end = np.array([spec.size])
    for name in metrics:
        metric = get_metric(name)
        values = [float(np.asarray(metric.curve(
            y[s:s + spec.size], pred, end,
            MetricContext(n_classes=n_classes, X=X[s:s + spec.size],
                          extra=stream_subset_extra(y, np.arange(s, s + spec.size)))))[-1])
            for s, pred in zip(starts.tolist(), tests, strict=True)]
        curves[name] = values
        finals[name] = float(np.mean(values)) if values else float("nan")
    return {"every": spec.every, "size": spec.size, "metrics": finals, "curves": curves}


def min_samples(spec: HoldoutSpec | None) -> tuple[int, str] | None:
    """The shortest stream with one complete held-out test, and why."""
    if spec is None:
        return None
    need = spec.every + spec.size
    return (need, f"protocol parameter holdout = {{every: {spec.every}, size: {spec.size}}} "
            f"needs {need} samples for one held-out test")


def scored_predictions(spec: HoldoutSpec, n: int) -> tuple[int, str]:
    """The prequential (test-then-train) predictions a run scores over ``n`` samples: the
    held-out ones are not among them (they have their own block), and why in words."""
    held = int(spec.held_out(n).sum())
    if not held:
        return n, ""
    return n - held, (f"{held} of them held out by holdout = {{every: {spec.every}, size: "
                      f"{spec.size}}}, which the prequential metrics do not score")
