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
Appendix C; FORKS paper, the mistake-rate protocol), with the field's evaluation methods
as its parameters, one at a time: delayed labels (``delay``,
:mod:`~streamlearn.protocols.delayed_labels`), prequential validation over ``k`` learner
copies (``validation``, :mod:`~streamlearn.protocols.validation`) and a periodic held-out
test (``holdout``, :mod:`~streamlearn.protocols.holdout`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
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
from streamlearn.errors import UserError
from streamlearn.metrics.classification import stream_subset_extra
from streamlearn.params import OfType
from streamlearn.protocols.delayed_labels import (
    delay_schedule,
    parse_delay,
    take_delay_columns,
)
from streamlearn.protocols.delayed_labels import min_samples as delay_min_samples
from streamlearn.protocols.holdout import holdout_block, parse_holdout, run_with_holdout
from streamlearn.protocols.holdout import min_samples as holdout_min_samples
from streamlearn.protocols.holdout import scored_predictions as holdout_scored
from streamlearn.protocols.preparation import prepare_stream
from streamlearn.protocols.prequential_loop import (
    PrequentialOutput,
    read_only,
    run_prequential,
    run_scheduled,
)
from streamlearn.protocols.scoring import checkpoint_positions, kind_blocks, score_curves
from streamlearn.protocols.subset_scoring import score_subset
from streamlearn.protocols.user_learner_checks import (
    check_user_learner,
    is_library_learner,
    outside_state,
)
from streamlearn.protocols.validation import fold_schedule, parse_validation
from streamlearn.protocols.validation import scored_predictions as validation_scored
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
        # Distribution over chunks (fused path) or over the timed samples (per-sample
        # loop: one in `timed_every`, from whose predict/learn times the split above is
        # estimated; the total is measured whole).
        "per_sample_distribution": timing_summary(per_sample),
        "distribution_over": "chunks" if out.fused else "samples",
        **({} if out.timed_every is None else {"timed_every": out.timed_every}),
    }


class PrequentialProtocol(Protocol):
    """Test-then-train over the whole stream: sample ``k`` is predicted by the model of
    samples ``< k``, then learnt. Subclasses fix ``task`` (and may add preparation steps
    by overriding :meth:`prepare`)."""

    def __init__(self) -> None:
        self._validate_params()

    def prepare(self, stream_cfg: Any, seed: int, data_dir: str | None) -> PreparedData:
        return prepare_stream(stream_cfg, seed, data_dir)

    def warm_up(self, learner: Learner, data: PreparedData, *, fused: bool = True,
                ) -> Callable[[], None] | None:
        """Compile (numba JIT) or load cached kernels on a throwaway clone, so the timed
        run measures the learner and not the compiler: the learner's own
        :meth:`~streamlearn.base.Learner.warm_up` on the first 256 samples (it reaches
        paths such as a full budget), then the first two samples through the runner.
        Both see read-only views of the data, as the run does. A user's learner is then
        checked on the same rows (:mod:`~streamlearn.protocols.user_learner_checks`): it
        must be reproducible and, when the run will use its ``predict_learn_many``
        (``fused``, the plain test-then-train run), its fused path must be its loop; the
        check to make after the run is returned."""
        X, y = read_only(data.X[:WARM_UP_ROWS]), read_only(data.y[:WARM_UP_ROWS])
        state = None if is_library_learner(learner) else outside_state(learner)
        learner.warm_up(X, y)
        clone = learner.clone()
        clone.reset(data.X.shape[1], data.n_classes)  # type: ignore[attr-defined]
        k = min(2, data.X.shape[0])
        run_prequential(clone, data.X[:k], data.y[:k], chunk_size=max(k, 1),  # type: ignore[arg-type]
                        n_classes=data.n_classes)
        if is_library_learner(learner):
            return None
        return check_user_learner(learner, X, y, n_classes=data.n_classes,
                                  fused=fused and self._runs_fused, state=state,
                                  predicts_unlearnt=not self._plain)

    @property
    def _runs_fused(self) -> bool:
        """Whether this protocol's run may call ``predict_learn_many``."""
        return True

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


def _subset_extra(y: np.ndarray, scored: np.ndarray) -> dict[str, np.ndarray]:
    """What a metric of a subset of the stream (the samples where ``scored``) may read of
    the whole stream (:func:`~streamlearn.metrics.classification.stream_subset_extra`)."""
    return stream_subset_extra(y, np.flatnonzero(scored))


@register_protocol("prequential-classification")
class PrequentialClassification(PrequentialProtocol):
    """Test-then-train classification over the whole stream; the metrics of the
    Online-BLS paper, Appendix C (OCA, BACC, AVRBACC, F1, MCC), and the mistake rate.

    Parameters (at most one of them; none: the plain test-then-train run)
    ----------
    delay
        Delayed labels: an integer ``d >= 0`` (the label of sample ``t`` arrives at
        ``t + d``) or ``{column: J}`` / ``{column: J, moment: K}`` (per-sample delays,
        and times, from stream columns); River's semantics, see
        :mod:`~streamlearn.protocols.delayed_labels`. ``0`` and ``1`` are the plain run.
    validation
        ``{method: cross | split | bootstrap, folds: k}``, ``k >= 2``: prequential
        validation over ``k`` copies of the learner, each copy a run of its own
        (:mod:`~streamlearn.protocols.validation`; Bifet et al., KDD 2015).
    holdout
        ``{every: p, size: h}``: every ``p`` samples, test on the next ``h`` without
        learning them (:mod:`~streamlearn.protocols.holdout`).
    """

    task = "classification"
    default_metrics = ("oca", "bacc", "avrbacc", "f1", "mcc")
    default_curve_metric = "oce"
    #: ``"scores"``: each round's real score, for learners tagged ``"scores"`` (FORKS regret)
    provides: ClassVar[frozenset[str]] = frozenset({"X", "scores"})
    _constraints: ClassVar[dict[str, Any]] = {
        "delay": OfType((int, dict), allow_none=True),
        "validation": OfType((dict,), allow_none=True),
        "holdout": OfType((dict,), allow_none=True),
    }

    def __init__(self, *, delay: int | dict[str, Any] | None = None,
                 validation: dict[str, Any] | None = None,
                 holdout: dict[str, Any] | None = None) -> None:
        self.delay = delay
        self.validation = validation
        self.holdout = holdout
        self._validate_params()
        self._delay = parse_delay(delay)
        self._validation = parse_validation(validation)
        self._holdout = parse_holdout(holdout)

    @classmethod
    def _check_param_values(cls, values: Mapping[str, Any]) -> None:
        super()._check_param_values(values)
        parse_delay(values["delay"])
        parse_validation(values["validation"])
        parse_holdout(values["holdout"])
        given = [k for k in ("delay", "validation", "holdout") if values[k] is not None]
        if len(given) > 1:
            raise UserError(f"The parameters {' and '.join(map(repr, given))} of "
                            f"{cls.__name__} cannot be combined: choose one evaluation "
                            "method per experiment.")

    @property
    def _plain(self) -> bool:
        """True when the run is the plain test-then-train one (also ``delay`` 0 or 1)."""
        return ((self._delay is None or self._delay.is_plain) and self._validation is None
                and self._holdout is None)

    def provides_for(self, learner_cls: type[Learner]) -> frozenset[str]:
        # per-round scores are recorded by the plain test-then-train loop only
        if "scores" in learner_cls.all_tags() and self._plain:
            return self.provides
        return self.provides - {"scores"}

    def min_samples(self) -> tuple[int, str] | None:
        needs = [delay_min_samples(self._delay), holdout_min_samples(self._holdout)]
        if self._validation is not None:
            k = self._validation.folds
            needs.append((k, f"protocol parameter validation with {k} folds needs at least "
                          f"{k} samples (one test per copy)"))
        found = [x for x in needs if x is not None]
        return max(found) if found else None

    def scored_predictions(self, n: int) -> tuple[int, str]:
        # delayed labels score every sample; the other methods say how many they score
        if self._validation is not None:
            return validation_scored(self._validation, n)
        if self._holdout is not None:
            return holdout_scored(self._holdout, n)
        return n, ""

    def fold_count(self) -> int | None:
        return None if self._validation is None else self._validation.folds

    def stream_config_refusal(self, stream_cfg: Any) -> str | None:
        """A delay (or moment) column is read from the prepared features, after the
        stream's scaling: scaled, the delays are not the file's (a min-max scaling made
        every delay below one sample, so the run was the plain run, exit 0)."""
        if self._delay is None or self._delay.fixed is not None:
            return None
        if getattr(stream_cfg, "normalize", "none") != "none":
            return (f"normalize: {stream_cfg.normalize} would scale the delay column the "
                    f"delayed labels read (delay: {self._delay.as_json()}); set normalize: "
                    f"none for this stream, or scale the other features in the file")
        return None

    def check_stream_data(self, stream_cfg: Any, seed: int, data_dir: str | None) -> None:
        """A delay (and moment) column is read from the data: its name or index and its
        values are checked by preparing the stream as the run will (once per seed only
        when the order or the data depend on it; the preparation is cached), before
        anything is written. A negative delay had failed every run on Dask's workers (exit
        1, a summary of failed runs) and stopped ``--backend processes`` at that stream's
        first run, the earlier streams' records written (exit 2)."""
        if self._delay is not None and self._delay.fixed is None:
            self.prepare(stream_cfg, seed, data_dir)

    def prepare(self, stream_cfg: Any, seed: int, data_dir: str | None) -> PreparedData:
        """The shared preparation, then the checks the runner could not make before the
        stream was loaded (its length, when not known beforehand; the delay columns, read
        and the delay column taken out of the features:
        :func:`~streamlearn.protocols.delayed_labels.take_delay_columns`)."""
        data = super().prepare(stream_cfg, seed, data_dir)
        n = data.X.shape[0]
        need = self.min_samples()
        if need is not None and n < need[0]:
            raise UserError(f"Stream {stream_cfg.label!r} has {n} samples, but {need[1]}.")
        if self._delay is not None and self._delay.fixed is None:
            data = take_delay_columns(self._delay, data, stream_cfg.label)
        return data

    @property
    def _runs_fused(self) -> bool:
        # the plain run and the hold-out's test-then-train segments call
        # predict_learn_many; delayed labels and prequential validation run the loop
        return self._validation is None and (self._delay is None or self._delay.is_plain)

    def warm_up(self, learner: Learner, data: PreparedData, *, fused: bool = True,
                ) -> Callable[[], None] | None:
        after_run = super().warm_up(learner, data, fused=fused)
        if not self._plain:  # the methods' per-sample path compiles predict_one/learn_one
            clone = learner.clone()
            clone.reset(data.X.shape[1], data.n_classes)  # type: ignore[attr-defined]
            k = min(2, data.X.shape[0])
            run_prequential(clone, data.X[:k], data.y[:k],  # type: ignore[arg-type]
                            chunk_size=max(k, 1), use_many=False, n_classes=data.n_classes)
        return after_run

    def run(self, learner: Learner, data: PreparedData, ctx: RunContext) -> RunResult:
        if self._plain:
            result = super().run(learner, data, ctx)
            if self._delay is not None:
                result.notes["delay"] = self._delay.as_json()
            return result
        if (self._delay is not None and self._delay.fixed is None
                and "delay" not in data.extra):  # not from prepare(): read the columns here
            data = take_delay_columns(self._delay, data, data.info.get("label", ""))
        n = data.X.shape[0]
        learner.reset(data.X.shape[1], data.n_classes)
        progress = None if ctx.on_progress is None else (lambda k: ctx.on_progress(k, n))
        at = checkpoint_positions(n, ctx.checkpoints)
        if self._holdout is not None:
            return self._run_holdout(learner, data, ctx, at, progress)
        if self._delay is not None:
            schedule = delay_schedule(self._delay, data.X, label=data.info.get("label", ""),
                                      delays=data.extra.get("delay"),
                                      moments=data.extra.get("moment"))
            notes: dict[str, Any] = {"delay": self._delay.as_json()}
        else:
            assert self._validation is not None
            fold = ctx.fold if ctx.fold is not None else 0
            schedule = fold_schedule(self._validation, fold, n,
                                     ctx.seed if ctx.seed is not None else 0)
            notes = {"fold": {"method": self._validation.method, "index": fold,
                              "folds": self._validation.folds}}
        out = run_scheduled(learner, data.X, data.y, schedule, chunk_size=ctx.chunk_size,
                            on_chunk=progress, n_classes=data.n_classes)
        tested = schedule.tested
        y_true = data.y[tested]
        context = MetricContext(n_classes=data.n_classes, X=data.X[tested],
                                extra=_subset_extra(data.y, tested))
        metrics, curves, blocks = score_subset(ctx, tested, y_true, out.y_pred, at, context)
        arrays = {"y_pred": out.y_pred, "y_true": y_true}
        if not tested.all():
            arrays["index"] = np.flatnonzero(tested)
        return RunResult(metrics=metrics, curves=curves, timing=prequential_timing(out, n),
                         curve_axis="samples seen", arrays=arrays, notes={**notes, **blocks})

    def _run_holdout(self, learner: Learner, data: PreparedData, ctx: RunContext,
                     at: np.ndarray, progress: Any) -> RunResult:
        spec = self._holdout
        assert spec is not None
        n = data.X.shape[0]
        out, tests = run_with_holdout(learner, data.X, data.y, spec,
                                      chunk_size=ctx.chunk_size, use_many=ctx.fused,
                                      on_chunk=progress, n_classes=data.n_classes)
        learnt = ~spec.held_out(n)
        y_true = data.y[learnt]
        context = MetricContext(n_classes=data.n_classes, X=data.X[learnt],
                                extra=_subset_extra(data.y, learnt))
        metrics, curves, blocks = score_subset(ctx, learnt, y_true, out.y_pred, at, context)
        block = holdout_block(spec, ctx.metrics, data.X, data.y, tests, data.n_classes)
        arrays = {"y_pred": out.y_pred, "y_true": y_true, "index": np.flatnonzero(learnt),
                  "holdout_pred": (np.concatenate(tests) if tests
                                   else np.empty(0, dtype=np.int64))}
        return RunResult(metrics=metrics, curves=curves,
                         timing=prequential_timing(out, int(learnt.sum())),
                         curve_axis="samples seen", arrays=arrays,
                         notes={"holdout": block, **blocks})
