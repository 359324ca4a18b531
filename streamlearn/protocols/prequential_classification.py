"""Evaluation protocols: how one (stream, algorithm, seed) run is carried out and scored.

A protocol (interface: :class:`streamlearn.base.Protocol`) owns the steps of a run —
prepare the data, warm up the learner's kernels, run and score, and an optional untimed
memory pass — and returns a :class:`~streamlearn.base.RunResult`; the runner writes it
into the run record. New protocols (prequential regression on a time series, a network
grown on a fixed split) are new classes registered with
:func:`~streamlearn.registry.register_protocol`; the runner, records and reports do not
change.

Here: the prequential (test-then-train) protocol, parametrised by task; registered for
classification as ``prequential-classification`` (Online-BLS paper, Sec. 5 and
Appendix C; FORKS paper, the mistake-rate protocol).
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from streamlearn.base import (
    Learner,
    MetricContext,
    PreparedData,
    Protocol,
    RunContext,
    RunResult,
)
from streamlearn.components import get_metric
from streamlearn.protocols.preparation import prepare_stream
from streamlearn.protocols.prequential_loop import PrequentialOutput, read_only, run_prequential
from streamlearn.protocols.scoring import checkpoint_positions, kind_blocks, score_curves
from streamlearn.registry import register_protocol

#: Rows of the run's own data a learner's :meth:`~streamlearn.base.Learner.warm_up` sees.
WARM_UP_ROWS = 256


def timing_summary(seconds: np.ndarray) -> dict[str, float]:
    """Mean, SD, median and 95th percentile of a distribution of timings."""
    return {
        "mean": float(np.mean(seconds)),
        "sd": float(np.std(seconds, ddof=1)) if seconds.size > 1 else 0.0,
        "median": float(np.median(seconds)),
        "p95": float(np.percentile(seconds, 95)),
    }


def prequential_timing(out: PrequentialOutput, n: int) -> dict[str, Any]:
    """The timing block of a record from one prequential pass."""
    if out.per_sample_seconds is not None:
        per_sample = out.per_sample_seconds
    else:
        per_sample = out.chunk_seconds / np.maximum(out.chunk_sizes, 1)
    return {
        "n_samples": n,
        "fused": out.fused,
        "total_seconds": out.total_seconds,
        "predict_seconds": out.predict_seconds,
        "learn_seconds": out.learn_seconds,
        "per_sample_seconds": out.total_seconds / max(n, 1),
        "per_sample_predict_seconds": out.predict_seconds / max(n, 1),
        "per_sample_learn_seconds": out.learn_seconds / max(n, 1),
        "samples_per_second": n / out.total_seconds if out.total_seconds > 0 else None,
        # Distribution over samples (per-sample loop) or over chunks (fused path).
        "per_sample_distribution": timing_summary(per_sample),
        "distribution_over": "chunks" if out.fused else "samples",
    }


class PrequentialProtocol(Protocol):
    """Test-then-train over the whole stream: sample ``k`` is predicted by the model of
    samples ``< k``, then learnt. Subclasses fix ``task`` (and may add preparation steps
    by overriding :meth:`prepare`)."""

    def __init__(self) -> None:
        self._validate_params()

    def prepare(self, stream_cfg: Any, seed: int, data_dir: str | None) -> PreparedData:
        return prepare_stream(stream_cfg, seed, data_dir)

    def warm_up(self, learner: Learner, data: PreparedData) -> None:
        """Compile (numba JIT) or load cached kernels on a throwaway clone, so the timed
        run measures the learner and not the compiler: the learner's own
        :meth:`~streamlearn.base.Learner.warm_up` on the first 256 samples (it reaches
        paths such as a full budget), then the first two samples through the runner.
        Both see read-only views of the data, as the run does."""
        learner.warm_up(read_only(data.X[:WARM_UP_ROWS]), read_only(data.y[:WARM_UP_ROWS]))
        clone = learner.clone()
        clone.reset(data.X.shape[1], data.n_classes)  # type: ignore[attr-defined]
        k = min(2, data.X.shape[0])
        run_prequential(clone, data.X[:k], data.y[:k], chunk_size=max(k, 1),  # type: ignore[arg-type]
                        n_classes=data.n_classes)

    def run(self, learner: Learner, data: PreparedData, ctx: RunContext) -> RunResult:
        n = data.X.shape[0]
        learner.reset(data.X.shape[1], data.n_classes)
        progress = None if ctx.on_progress is None else (lambda k: ctx.on_progress(k, n))
        # per-round scores only when a metric of the run reads them
        want_scores = any("scores" in get_metric(m).requires for m in ctx.metrics)
        out = run_prequential(learner, data.X, data.y, chunk_size=ctx.chunk_size,
                              use_many=ctx.fused, on_chunk=progress,
                              record_scores=want_scores, n_classes=data.n_classes)
        at = checkpoint_positions(n, ctx.checkpoints)
        extra = data.extra
        arrays = {"y_pred": out.y_pred, "y_true": data.y}
        if out.scores is not None:
            extra = {**data.extra, "scores": out.scores}
            arrays["scores"] = out.scores
        context = MetricContext(n_classes=data.n_classes, X=data.X, extra=extra)
        metrics, curves = score_curves(ctx.metrics, data.y, out.y_pred, at, context)
        notes = kind_blocks(ctx, data.y, out.y_pred, at, context)
        return RunResult(metrics=metrics, curves=curves, timing=prequential_timing(out, n),
                         curve_axis="samples seen", arrays=arrays, notes=notes)


@register_protocol("prequential-classification")
class PrequentialClassification(PrequentialProtocol):
    """Test-then-train classification over the whole stream; the metrics of the
    Online-BLS paper, Appendix C (OCA, BACC, AVRBACC, F1, MCC), and the mistake rate."""

    task = "classification"
    default_metrics = ("oca", "bacc", "avrbacc", "f1", "mcc")
    default_curve_metric = "oce"
    #: ``"scores"``: each round's real score, for learners tagged ``"scores"`` (FORKS regret)
    provides: ClassVar[frozenset[str]] = frozenset({"X", "scores"})

    def provides_for(self, learner_cls: type[Learner]) -> frozenset[str]:
        if "scores" in learner_cls.all_tags():
            return self.provides
        return self.provides - {"scores"}
