"""The ``prequential-regression`` protocol: test-then-train regression on a stream with a
continuous target.

Two kinds of stream (:attr:`streamlearn.base.Stream.series`):

* **A univariate series** (Fast-ONS paper, Sec. 2 and 4): one-step-ahead prediction. At
  step ``t`` the learner has seen ``x_0..x_t``, predicts ``x_{t+1}``, suffers the loss,
  then learns ``x_{t+1}``. The target shift is an explicit preparation step
  (:func:`~streamlearn.protocols.preparation.shift_target`): the inputs are
  ``series[:-1]`` and the targets ``series[1:]``, both views of one array. A learner
  tagged ``needs_series`` receives ``x_t`` alone and keeps its own delay line; any other
  regressor receives the last ``lags`` values as a read-only strided view (no ``n x M``
  lag matrix is materialised). The metrics' context carries the series and the learner's
  lag window, so the regret metrics compare with the best fixed predictor on the same
  windows.
* **Any other regression stream** (``(x_t, y_t)`` pairs: River's Friedman or
  TrumpApproval, a user's CSV): prequential as given, as River's
  ``evaluate.progressive_val_score`` and MOA's ``EvaluatePrequentialRegression`` do:
  predict ``y_t`` from ``x_t``, then learn ``(x_t, y_t)``. ``lags``, ``tile_to``, the
  regret metrics and the series learners belong to series and are refused here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, ClassVar

import numpy as np

from streamlearn import components
from streamlearn.base import (
    Learner,
    LearnerTag,
    MetricContext,
    PreparedData,
    RunContext,
    RunResult,
)
from streamlearn.components import get_metric
from streamlearn.errors import UserError
from streamlearn.kernels.running_sums import Loss
from streamlearn.metrics.regression import StreamedLossSums
from streamlearn.metrics.regret import lag_windows
from streamlearn.params import Interval
from streamlearn.protocols.preparation import Preparation, prepare_stream, shift_target
from streamlearn.protocols.prequential_classification import (
    WARM_UP_ROWS,
    PrequentialProtocol,
    prequential_timing,
)
from streamlearn.protocols.prequential_loop import read_only, run_prequential
from streamlearn.protocols.scoring import checkpoint_positions, kind_blocks, score_curves
from streamlearn.protocols.user_learner_checks import (
    check_user_learner,
    is_library_learner,
    outside_state,
)
from streamlearn.registry import register_protocol

__all__ = ["PrequentialRegression", "PrequentialSeriesRegression"]

#: the metrics of a run on a series when the config names none (the Fast-ONS paper's)
SERIES_METRICS: tuple[str, ...] = ("mse", "mae")
#: the metrics of a run on a stream of (x, y) pairs when the config names none (River's
#: and MOA's regression evaluators report these)
PAIRS_METRICS: tuple[str, ...] = ("rmse", "mae", "r2")
#: context entries that exist only on a series (what the regret metrics read)
SERIES_CONTEXT: frozenset[str] = frozenset({"series", "lags", "intercept",
                                            "regret_max_samples"})


def is_series(stream_cls: type) -> bool:
    """Whether a stream class is a univariate series whose next value is the target."""
    return bool(getattr(stream_cls, "series", False))


@register_protocol("prequential-regression")
class PrequentialRegression(PrequentialProtocol):
    """Test-then-train regression: on a univariate series, one-step-ahead prediction
    (predict ``x_{t+1}`` from ``x_0..x_t``, then learn it), with MSE and MAE curves,
    cumulative absolute loss and regret against the best fixed linear predictor in
    hindsight; on any other regression stream, predict ``y_t`` from ``x_t`` then learn it,
    with RMSE, MAE and R² (each also windowed and faded).

    Parameters
    ----------
    lags
        Series only: lag window for regressors that do not keep their own delay line
        (``null``: 1).
    tile_to
        Series only: repeat the (scaled) series end to end to this many values (timing
        studies).
    regret_max_samples
        Longest prefix on which the regret comparator is solved; checkpoints beyond it
        report NaN ("—"), and the run's final regret is the one on this prefix (the
        record's ``metric_prefix`` says so, and so does the table caption).
    """

    task: ClassVar[str] = "regression"
    #: for a config of series; :meth:`default_metrics_for` says it per set of streams
    default_metrics: ClassVar[tuple[str, ...]] = SERIES_METRICS
    default_curve_metric: ClassVar[str] = "mse"
    introduces_tags: ClassVar[dict[str, LearnerTag]] = {
        "needs_series": LearnerTag(
            "reads a univariate time series (it keeps its own delay line)",
            refusal="it reads a time series; use a time-series protocol"),
    }
    provides: ClassVar[frozenset[str]] = frozenset({"X"}) | SERIES_CONTEXT
    _constraints: ClassVar[dict[str, Any]] = {
        "lags": Interval(1, 100_000, integer=True, allow_none=True),
        "tile_to": Interval(2, 10**9, integer=True, allow_none=True),
        "regret_max_samples": Interval(1, 10**7, integer=True),
    }

    def __init__(self, *, lags: int | None = None, tile_to: int | None = None,
                 regret_max_samples: int = 50_000) -> None:
        self.lags = lags
        self.tile_to = tile_to
        self.regret_max_samples = regret_max_samples
        self._validate_params()

    # ------------------------------------------------------------------ the streams

    @classmethod
    def default_metrics_for(cls, stream_classes: Sequence[type]) -> tuple[str, ...]:
        """The metrics when the config names none: MSE and MAE on series (as before),
        RMSE, MAE and R² on streams of pairs, both lists (in that order, once each) when
        a config mixes the two."""
        kinds = {is_series(s) for s in stream_classes} or {True}
        names = (*(SERIES_METRICS if True in kinds else ()),
                 *(PAIRS_METRICS if False in kinds else ()))
        return tuple(dict.fromkeys(names))

    def stream_incompatibility(self, stream_cls: type, metrics: Sequence[str],
                               learners: Sequence[type[Learner]] = ()) -> str | None:
        """Why a stream cannot run here with these metrics and learners (``None`` when it
        can): what belongs to a series (``lags``, ``tile_to``, the regret metrics, the
        learners tagged ``needs_series``) on a stream that is not one."""
        if is_series(stream_cls):
            return None
        set_params = [p for p in ("lags", "tile_to") if getattr(self, p) is not None]
        if set_params:
            return (f"protocol parameter(s) {', '.join(set_params)} apply to a univariate "
                    "series only, and this stream is (x, y) pairs")
        for m in metrics:
            needs = sorted(set(get_metric(m).requires) & SERIES_CONTEXT)
            if needs:
                return (f"metric {m!r} needs the series ({', '.join(needs)}), and this "
                        "stream is (x, y) pairs, not a univariate series")
        for learner in learners:
            if "needs_series" in learner.all_tags():
                return (f"algorithm {learner.__name__} reads a univariate series, and "
                        "this stream is (x, y) pairs")
        return None

    def stream_config_refusal(self, stream_cfg: Any) -> str | None:
        """A series capped to fewer than two values has no value to predict (the first
        prediction is of the second value): refused at validation, naming the stream and
        its cap (it had failed after the progress bar with "a series of 1 values has no
        target 1 step(s) ahead", naming neither, and ``validate`` had passed it)."""
        cap = getattr(stream_cfg, "max_samples", None)
        if cap is None or cap >= 2 or not is_series(components.get_stream(stream_cfg.name)):
            return None
        return (f"stream {stream_cfg.label!r} ({stream_cfg.name}) is a univariate series "
                f"and its max_samples: {cap} leaves {cap} value(s); one-step-ahead "
                "prediction needs at least 2 (the first prediction is of the second "
                "value). Raise max_samples to 2 or more")

    def prepared_samples(self, n: int, stream_cfg: Any) -> tuple[int, str]:
        """A series of ``v`` values (``n``, or ``tile_to`` capped by ``max_samples``) gives
        ``v - 1`` one-step-ahead targets; a stream of pairs its ``n`` samples."""
        if not is_series(components.get_stream(stream_cfg.name)):
            return n, ""
        values, series = n, "a series of"
        if self.tile_to is not None:
            cap = stream_cfg.max_samples
            values = self.tile_to if cap is None else min(self.tile_to, cap)
            series = f"the series tiled (tile_to = {self.tile_to}) and capped to" if (
                cap is not None and cap < self.tile_to) else "the series tiled to"
        return max(values - 1, 0), (f"one-step-ahead prediction on {series} {values} "
                                    f"values predicts {max(values - 1, 0)} of them")

    def prepare(self, stream_cfg: Any, seed: int, data_dir: str | None) -> PreparedData:
        """A series: the shared preparation with the series tiled to ``tile_to`` and the
        stream's ``max_samples`` applied after tiling (the scale is fitted on the whole
        series, and a smoke run's cap also bounds a tiled series), then the target
        shifted. Any other stream: the shared preparation, as the classification
        protocol has it (the target as given, never scaled)."""
        stream_cls = components.get_stream(stream_cfg.name)
        if not is_series(stream_cls):
            return self._prepare_pairs(stream_cls, stream_cfg, seed, data_dir)
        base = prepare_stream(stream_cfg, seed, data_dir,
                              Preparation(cap_after="tile", tile_to=self.tile_to))
        if base.info.get("task") != "regression" or base.X.shape[1] != 1:
            raise UserError(
                f"Stream {base.info.get('label')!r} is not a univariate series (task "
                f"{base.info.get('task')!r}, {base.X.shape[1]} features): the "
                "'prequential-regression' protocol predicts the next value of one series.")
        series = base.X[:, 0]
        try:
            inputs, targets = shift_target(series, 1)
        except UserError as exc:  # a file of one value: name the stream
            raise UserError(f"Stream {stream_cfg.label!r}: {exc}") from None
        info = {**base.info, "n_samples": int(targets.size),
                "n_predictions": int(targets.size)}
        return PreparedData(X=inputs[:, None], y=targets, info=info, n_classes=None,
                            extra={"series": series})

    def _prepare_pairs(self, stream_cls: type, stream_cfg: Any, seed: int,
                       data_dir: str | None) -> PreparedData:
        why = self.stream_incompatibility(stream_cls, ())
        if why is not None:
            raise UserError(f"Stream {stream_cfg.label!r}: {why}.")
        base = prepare_stream(stream_cfg, seed, data_dir)
        if base.info.get("task") != "regression":
            raise UserError(f"Stream {stream_cfg.label!r} is a {base.info.get('task')} "
                            "stream: the 'prequential-regression' protocol needs a "
                            "continuous target.")
        if not np.all(np.isfinite(base.y)):
            raise UserError(f"Stream {stream_cfg.label!r} has NaN or infinite target "
                            "values.")
        return base

    def check_data(self, learner_cls: type[Learner], data: PreparedData) -> None:
        super().check_data(learner_cls, data)
        if "series" not in data.extra and "needs_series" in learner_cls.all_tags():
            raise UserError(
                f"{learner_cls.__name__} reads a univariate series, but stream "
                f"{data.info.get('label')!r} is (x, y) pairs with "
                f"{data.X.shape[1]} feature(s).")

    # ------------------------------------------------------------------ the run

    def _inputs(self, learner: Learner, data: PreparedData) -> np.ndarray:
        if "series" not in data.extra or "needs_series" in learner.all_tags():
            return data.X
        return lag_windows(data.X[:, 0], self._lags)

    @property
    def _lags(self) -> int:
        return 1 if self.lags is None else int(self.lags)

    def _window(self, learner: Learner) -> int:
        return int(getattr(learner, "n_lags", self._lags))

    def warm_up(self, learner: Learner, data: PreparedData, *, fused: bool = True,
                ) -> Callable[[], None] | None:
        X = self._inputs(learner, data)
        Xw, yw = read_only(X[:WARM_UP_ROWS]), read_only(data.y[:WARM_UP_ROWS])
        state = None if is_library_learner(learner) else outside_state(learner)
        learner.warm_up(Xw, yw)
        clone = learner.clone()
        clone.reset(X.shape[1], None)  # type: ignore[attr-defined]
        k = min(2, X.shape[0])
        run_prequential(clone, X[:k], data.y[:k], chunk_size=max(k, 1))  # type: ignore[arg-type]
        if is_library_learner(learner):
            return None
        return check_user_learner(learner, Xw, yw, fused=fused, state=state)

    def run(self, learner: Learner, data: PreparedData, ctx: RunContext) -> RunResult:
        on_series = "series" in data.extra
        if not on_series:
            lacking = [m for m in ctx.metrics
                       if set(get_metric(m).requires) & SERIES_CONTEXT]
            if lacking:
                raise UserError(f"metric(s) {', '.join(lacking)} need a univariate "
                                "series; this stream is (x, y) pairs.")
        X = self._inputs(learner, data)
        n = X.shape[0]
        learner.reset(X.shape[1], None)
        progress = None if ctx.on_progress is None else (lambda k: ctx.on_progress(k, n))
        at = checkpoint_positions(n, ctx.checkpoints)
        capped = [m for m in ctx.metrics if "regret_max_samples" in get_metric(m).requires]
        if capped and n > self.regret_max_samples:
            # the comparator is solved up to the cap only: the cap is a checkpoint, and the
            # final value of those metrics is the one on that documented prefix
            at = np.union1d(at, [self.regret_max_samples])
        # Streaming: when the predictions are not saved, no windowed or faded metric is
        # asked, and every metric is a running sum of a per-sample loss, the sums at the
        # checkpoints are taken chunk by chunk, so a run holds no n-sized array besides
        # the data (bit-identical to the whole pass)
        codes = [getattr(get_metric(m), "loss_code", None) for m in ctx.metrics]
        sums: StreamedLossSums | None = None
        on_predictions = None
        if (not ctx.keep_predictions and ctx.window is None and ctx.fading is None
                and all(c is not None for c in codes)):
            sums = streaming = StreamedLossSums(
                sorted({Loss(c) for c in codes if c is not None}), at)

            def on_predictions(start: int, pred: np.ndarray) -> None:
                streaming.add(start, data.y[start:start + pred.size], pred)

        out = run_prequential(learner, X, data.y, chunk_size=ctx.chunk_size,
                              use_many=ctx.fused, on_chunk=progress,
                              on_predictions=on_predictions,
                              keep_predictions=on_predictions is None)
        extra: dict[str, np.ndarray] = {} if sums is None else sums.context_extra()
        if on_series:
            # the learner says (Regressor.fits_intercept); one that does not is taken
            # to have one (it had been compared without one unless it had `offset`:
            # River's linear regression's regret came out 7-8 % low)
            intercept = bool(getattr(learner, "fits_intercept", True))
            extra.update({
                "series": data.extra["series"],
                "lags": np.array([self._window(learner)]),
                "intercept": np.array([int(intercept)]),
                "regret_max_samples": np.array([self.regret_max_samples]),
            })
        context = MetricContext(X=X, extra=extra)
        metrics, curves = score_curves(ctx.metrics, data.y, out.y_pred, at, context)
        notes: dict[str, Any] = {}
        if on_predictions is None:
            notes.update(kind_blocks(ctx, data.y, out.y_pred, at, context))
        if capped and n > self.regret_max_samples:
            k = int(np.searchsorted(at, self.regret_max_samples))
            for m in capped:
                metrics[m] = float(curves[m][k])
            notes["metric_prefix"] = {m: self.regret_max_samples for m in capped}
        if on_series and extra["intercept"][0] and any(m.startswith("regret")
                                                          for m in ctx.metrics):
            # the regrets were taken against the comparator with an intercept (absent:
            # without one, as in every record made before the field existed, which a
            # rerun then reproduces bit for bit)
            notes["regret_comparator_intercept"] = True
        warn = getattr(learner, "run_warnings", None)
        if callable(warn) and warn():
            notes["warnings"] = list(warn())
        arrays = {"y_pred": out.y_pred, "y_true": data.y}
        if on_series:
            arrays["x0"] = data.extra["series"][:1]
        return RunResult(metrics=metrics, curves=curves, timing=prequential_timing(out, n),
                         curve_axis="samples seen", arrays=arrays, notes=notes)


#: the earlier name, from when the protocol took series only
PrequentialSeriesRegression = PrequentialRegression
