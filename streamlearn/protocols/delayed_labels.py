"""Delayed labels (verification latency): test now, learn when the label arrives.

The ``delay`` parameter of the ``prequential-classification`` protocol, with River's
semantics (``river.evaluate.progressive_val_score(delay=...)`` over
``river.stream.simulate_qa``; Grzenda, Gomes and Bifet, "Delayed labelling evaluation for
data streams", Data Min. Knowl. Disc. 34, 2020):

* sample ``t`` arrives at moment ``m_t`` (its index ``t``, or a timestamp column) and its
  label becomes available at ``m_t + d_t``;
* at each step ``j``, first every label whose arrival ``m_t + d_t <= m_j`` (``t < j``) is
  learnt, oldest arrival first (ties in stream order), then sample ``j`` is predicted;
* labels that have not arrived when the stream ends are learnt after the last prediction.

So a label is never learnt before the step after its own sample: ``delay: 0`` and
``delay: 1`` give the same predictions, those of the plain test-then-train run (the
protocol then runs the plain, possibly fused, path: ``delay: 0`` is the plain run bit for
bit). Every sample is predicted once and scored in stream order: the record's curves are
at the usual checkpoints of samples seen (River counts a sample when its label arrives).

Forms of the parameter::

    delay: 100                       # every label 100 samples later
    delay: {column: 3}               # feature 3 holds each sample's delay, in samples
    delay: {column: 3, moment: 0}    # feature 0 is the sample's time, feature 3 the delay
                                     # in the same unit

A column is a feature name when the stream has names (a CSV file's header, as its
``target`` is named; ARFF attribute names), or a 0-based feature index (the target
column not counted). The delay column is read and then removed from the learner's
features, as the target column is: it says when the label will arrive, which is not known
when the sample is predicted (a learner given it could learn that one class is verified
sooner). The moment column stays a feature (a sample's time is known when it arrives).
River's ``simulate_qa`` leaves both in ``x``. Delays must be finite and ``>= 0``, and
moments non-decreasing (samples arrive in time order).

Cost: a learner with a fused ``predict_learn_many`` cannot interleave late labels, so a
delay of 2 or more runs the per-sample ``predict_one``/``learn_one`` loop.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from streamlearn.base import PreparedData
from streamlearn.errors import UserError
from streamlearn.protocols.prequential_loop import Schedule

__all__ = ["DelaySpec", "delay_schedule", "parse_delay", "take_delay_columns"]


@dataclass(frozen=True)
class DelaySpec:
    """A parsed ``delay`` parameter: a fixed delay in samples, or the column of each
    sample's delay (and optionally the column of its moment)."""

    fixed: int | None = None
    column: int | str | None = None
    moment: int | str | None = None

    @property
    def is_plain(self) -> bool:
        """True when the predictions are those of the plain run (a fixed delay <= 1)."""
        return self.fixed is not None and self.fixed <= 1

    def as_json(self) -> int | dict[str, Any]:
        if self.fixed is not None:
            return self.fixed
        out: dict[str, Any] = {"column": self.column}
        if self.moment is not None:
            out["moment"] = self.moment
        return out


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _column_ref(value: Any, key: str) -> int | str:
    if (_is_int(value) and value >= 0) or (isinstance(value, str) and value):
        return value  # type: ignore[no-any-return]
    raise UserError(f"The 'delay' parameter's {key!r} must be a 0-based feature index or a "
                    f"feature name. Got {value!r} instead.")


def parse_delay(value: Any) -> DelaySpec | None:
    """The ``delay`` parameter as a :class:`DelaySpec` (``None``: no delay); a
    :class:`UserError` names what is wrong."""
    if value is None:
        return None
    if _is_int(value):
        if value < 0:
            raise UserError(f"The 'delay' parameter must be an integer >= 0 (samples). Got "
                            f"{value!r} instead.")
        return DelaySpec(fixed=int(value))
    if isinstance(value, dict):
        unknown = sorted(set(value) - {"column", "moment"})
        if unknown or "column" not in value:
            raise UserError("The 'delay' parameter as a mapping takes 'column' (the feature "
                            "holding each sample's delay) and optionally 'moment' (the "
                            f"feature holding its time). Got {value!r} instead.")
        moment = value.get("moment")
        return DelaySpec(column=_column_ref(value["column"], "column"),
                         moment=None if moment is None else _column_ref(moment, "moment"))
    raise UserError("The 'delay' parameter must be an integer >= 0 (samples) or a mapping "
                    f"{{column: J, moment: K}}. Got {value!r} instead.")


def column_index(ref: int | str, n_features: int, names: list[str] | None,
                 label: str) -> int:
    """The feature index a column reference names, or a :class:`UserError`."""
    if isinstance(ref, str):
        if not names:
            raise UserError(f"Stream {label!r} has no feature names: give the delay's column "
                            f"as a 0-based feature index, not {ref!r}.")
        if ref not in names:
            raise UserError(f"Stream {label!r} has no feature {ref!r}. Features: "
                            f"{', '.join(names)}.")
        return names.index(ref)
    if ref >= n_features:
        raise UserError(f"The delay's column {ref} is out of range: stream {label!r} has "
                        f"{n_features} features (0-based indices 0..{n_features - 1}).")
    return ref


def _arrivals(delays: np.ndarray, moments: np.ndarray | None,
              label: str) -> tuple[np.ndarray, np.ndarray]:
    """Each sample's moment and label arrival time (``moment + delay``), checked."""
    bad = ~np.isfinite(delays) | (delays < 0)
    if bad.any():
        t = int(np.flatnonzero(bad)[0])
        raise UserError(f"Stream {label!r}: the delay column gives sample {t} the delay "
                        f"{float(delays[t])!r}; delays must be finite and >= 0.")
    if moments is None:
        moments = np.arange(delays.shape[0], dtype=np.float64)
    else:
        back = np.flatnonzero(np.diff(moments) < 0)
        if back.size:
            t = int(back[0]) + 1
            raise UserError(f"Stream {label!r}: the moment column goes back in time at "
                            f"sample {t} ({float(moments[t])!r} after {float(moments[t - 1])!r}); "
                            "samples "
                            "must arrive in time order.")
    return moments, moments + delays


def take_delay_columns(spec: DelaySpec, data: PreparedData, label: str = "") -> PreparedData:
    """The prepared data of a run with per-sample delays: the delay column's values (and
    the moment column's) in ``extra["delay"]`` (``extra["moment"]``), checked, and the
    delay column removed from ``X`` (the moment column stays). ``data`` (the per-process
    cache's) is not changed."""
    assert spec.column is not None
    d = data.X.shape[1]
    names = list(data.feature_names) if data.feature_names else None
    j = column_index(spec.column, d, names, label)
    extra = {"delay": np.ascontiguousarray(data.X[:, j])}
    if spec.moment is not None:
        extra["moment"] = np.ascontiguousarray(
            data.X[:, column_index(spec.moment, d, names, label)])
    _arrivals(extra["delay"], extra.get("moment"), label)  # raises for a bad value
    if d == 1:
        raise UserError(f"Stream {label!r}: the delay column is its only feature; the "
                        "learner would have none once it is removed.")
    shown = f"{names[j]!r} (feature {j})" if names else f"feature {j}"
    info = {**data.info, "n_features": d - 1,
            "runner_preprocessing": [*data.info.get("runner_preprocessing", []),
                                     f"delay column {shown} read and removed from the "
                                     "features"]}
    return PreparedData(X=np.ascontiguousarray(np.delete(data.X, j, axis=1)), y=data.y,
                        info=info, n_classes=data.n_classes,
                        extra={**data.extra, **extra},
                        feature_names=(tuple(n for k, n in enumerate(names) if k != j)
                                       if names else None))


def delay_schedule(spec: DelaySpec, X: np.ndarray, names: list[str] | None = None,
                   label: str = "", *, delays: np.ndarray | None = None,
                   moments: np.ndarray | None = None) -> Schedule:
    """The :class:`~streamlearn.protocols.prequential_loop.Schedule` of a delayed run:
    every sample predicted, each label learnt at the first later step whose moment has
    reached its arrival (oldest arrival first, ties in stream order). Per-sample delays
    (and moments) are ``delays`` (``moments``) when given (as
    :func:`take_delay_columns` leaves them), else read from ``X``'s columns."""
    n = X.shape[0]
    tested = np.ones(n, dtype=bool)
    if spec.fixed is not None:
        lag = max(spec.fixed, 1)  # a label is learnt at the step after its sample at the soonest
        order = np.arange(n, dtype=np.int64)
        before = np.clip(np.arange(n, dtype=np.int64) - lag + 1, 0, n)
        return Schedule(tested, order, before)
    if delays is None:
        assert spec.column is not None
        d = X.shape[1]
        delays = X[:, column_index(spec.column, d, names, label)]
        if spec.moment is not None:
            moments = X[:, column_index(spec.moment, d, names, label)]
    moments, arrival = _arrivals(delays, moments, label)
    # first step j with moment_j >= arrival (moments are non-decreasing), never before t+1
    release = np.maximum(np.searchsorted(moments, arrival, side="left"),
                         np.arange(1, n + 1))
    index = np.arange(n, dtype=np.int64)
    order = np.lexsort((index, arrival, release)).astype(np.int64)
    before = np.searchsorted(release[order], np.arange(n), side="right").astype(np.int64)
    return Schedule(tested, order, before)


def min_samples(spec: DelaySpec | None) -> tuple[int, str] | None:
    """The shortest stream a fixed delay makes sense on, and why."""
    if spec is None or spec.fixed is None or spec.fixed <= 1:
        return None
    return (spec.fixed + 1, f"protocol parameter delay = {spec.fixed} would not reveal any "
            "label before the stream ends")
