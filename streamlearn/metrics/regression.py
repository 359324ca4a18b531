"""Prequential regression metrics: time averages of a per-sample loss (MSE, MAE, RMSE), as
the fast-ONS paper's Fig. 2 plots the MSE, with their running sums computed in one
compiled pass (:mod:`streamlearn.kernels.running_sums`), and the coefficient of
determination R².

Each also has a windowed form (over the last ``w`` samples) and a faded one (Gama, Sebastião
and Rodrigues, "On evaluating stream learning algorithms", Machine Learning 90, 2013,
Sec. 4.2: every sum the metric is made of weighs the sample ``a`` steps old by
``alpha**a``, and a mean divides by the faded count ``sum alpha**a``).

Precision: a window's sum is taken over the window itself (NumPy's pairwise summation),
never as a difference of two running sums, which on a long stream with a large mean loss
would lose the digits the two sums share. Faded sums and R²'s sum of squares around the
mean are carried from block to block with their exact decay and Chan et al.'s pairwise
update of the centred sum of squares (no ``sum y² - (sum y)²/n`` cancellation), on
targets taken from their first value when they sit far from zero relative to their range
(:func:`target_origin`: targets ``1e12 + 0..4`` keep their digits).

Range: where a sum overflows float64 although the metric does not (targets and errors
near 1e300: their squares are past the largest double, their RMSE is not), the sums are
taken again from the inputs scaled by ``2**-SHIFT`` (a power of two, so the scaling is
exact), and the metric is taken from those. Only the values whose sums were not finite are
replaced, so every value of an ordinary stream keeps its bits. A metric that itself
exceeds the largest double (an MSE of 1e600) stays ``inf``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, ClassVar

import numpy as np

from streamlearn.base import Metric, MetricContext
from streamlearn.kernels.running_sums import Loss, loss_sums_at, loss_sums_chunk
from streamlearn.registry import register_metric

_BLOCK = 1 << 20

#: inputs are scaled by 2**-SHIFT where a loss sum overflows (see the module docstring):
#: the squared error of two doubles scaled so is at most 2**970, and more than 2**50 of
#: them are needed to overflow the scaled sum, while a sum that did overflow (at least
#: 2**1024) is at least 2**-56 scaled, a normal number with all its digits
SHIFT = 540
_DOWN = 2.0 ** -SHIFT


def streamed_key(loss: Loss, *, scaled: bool = False) -> str:
    """The metric-context entry holding a loss's running sums at the checkpoints when the
    protocol computed them while streaming (``loss_sums_chunk``); ``scaled``: the sums of
    the inputs scaled by ``2**-SHIFT``, present when the plain ones overflowed."""
    return f"loss_sums_{int(loss)}" + ("_scaled" if scaled else "")


def _degree(loss: Loss) -> int:
    """``d`` with ``loss(c y, c p) = c**d loss(y, p)``."""
    return 2 if loss == Loss.SQUARED else 1


def _scaled(a: np.ndarray) -> np.ndarray:
    return np.asarray(a, dtype=np.float64) * _DOWN


class StreamedLossSums:
    """The running sums of per-sample losses at the checkpoints ``at``, fed the predictions
    chunk by chunk (bit-identical to :func:`cumulative_loss_at` over the whole arrays);
    once a sum overflows, the sums of the inputs scaled by ``2**-SHIFT`` are carried too,
    from the chunk where it did, under :func:`streamed_key` ``(loss, scaled=True)``."""

    def __init__(self, losses: list[Loss], at: np.ndarray) -> None:
        self._at = np.asarray(at, dtype=np.int64)
        self._losses = losses
        self._done = {c: 0 for c in losses}  # checkpoints written so far, per loss
        self._carry = {c: 0.0 for c in losses}  # running sum so far, per loss
        self._scaled: dict[Loss, list[Any]] = {}  # loss -> [done, carry, sums]
        self._sums = {c: np.full(self._at.shape, np.nan) for c in losses}

    def add(self, start: int, truth: np.ndarray, pred: np.ndarray) -> None:
        """The predictions ``pred`` of samples ``start ..`` and their targets ``truth``."""
        for c in self._losses:
            done, carry = self._done[c], self._carry[c]
            self._done[c], self._carry[c] = loss_sums_chunk(
                truth, pred, start, self._at, done, carry, int(c), self._sums[c])
            if c not in self._scaled and not np.isfinite(self._carry[c]):
                self._scaled[c] = [done, float(np.ldexp(carry, -SHIFT * _degree(c))),
                                   np.full(self._at.shape, np.nan)]
            if c in self._scaled:
                k, acc, sums = self._scaled[c]
                self._scaled[c][:2] = loss_sums_chunk(_scaled(truth), _scaled(pred), start,
                                                      self._at, k, acc, int(c), sums)

    def context_extra(self) -> dict[str, np.ndarray]:
        """The metric-context entries of the sums (read by :func:`cumulative_loss_at`)."""
        out = {streamed_key(c): sums for c, sums in self._sums.items()}
        out.update({streamed_key(c, scaled=True): v[2] for c, v in self._scaled.items()})
        return out


def cumulative_loss_at(loss: Any, y_true: np.ndarray, y_pred: np.ndarray,
                       at: np.ndarray, context: MetricContext | None = None, *,
                       scaled: bool = False) -> np.ndarray:
    """``sum_{t < T} loss(y_true_t, y_pred_t)`` for every ``T`` in ``at`` (increasing,
    1-based). ``loss`` is a :class:`~streamlearn.kernels.running_sums.Loss` code (one
    compiled pass, no temporaries) or any elementwise function of ``(y_true, y_pred)``
    arrays, then computed block by block so that a long series needs O(block) extra
    memory rather than several n-sized temporaries. Either way each running sum is
    sequential and bit-identical to one ``np.cumsum`` over the whole series.
    ``scaled`` (a ``Loss`` code only): the sums of the inputs times ``2**-SHIFT``."""
    at = np.asarray(at, dtype=np.int64)
    if isinstance(loss, Loss) and context is not None and streamed_key(loss) in context.extra:
        # summed while the protocol streamed the predictions (same kernel, same order)
        key = streamed_key(loss, scaled=scaled)
        if key not in context.extra:
            raise ValueError("the streamed running sums did not overflow: no scaled sums")
        sums = context.extra[key]
        if sums.shape != at.shape:
            raise ValueError("the streamed running sums were taken at other checkpoints")
        return sums
    if isinstance(loss, Loss):
        if scaled:
            return loss_sums_at(_scaled(y_true), _scaled(y_pred), at, int(loss))
        return loss_sums_at(np.ascontiguousarray(y_true, dtype=np.float64),
                            np.ascontiguousarray(y_pred, dtype=np.float64), at, int(loss))
    out = np.empty(at.shape)
    carry = 0.0
    k = 0
    n = int(at[-1]) if at.size else 0
    for start in range(0, n, _BLOCK):
        stop = min(start + _BLOCK, n)
        block = loss(np.asarray(y_true[start:stop], dtype=np.float64),
                     np.asarray(y_pred[start:stop], dtype=np.float64))
        cum = np.cumsum(np.concatenate(([carry], block)))[1:]
        while k < at.size and at[k] <= stop:
            out[k] = cum[at[k] - start - 1]
            k += 1
        carry = float(cum[-1])
    return out


class RegressionMetric(Metric):
    """Time average of a per-sample loss over the samples so far (the MSE curve of the
    fast-ONS paper, Fig. 2). Shown with four significant digits, so an MSE of 9.1e-4 reads
    0.00091, not 0.0."""

    task: ClassVar[str] = "regression"
    bigger_is_better: ClassVar[bool] = False
    precision: ClassVar[int] = 4
    notation: ClassVar[str] = "general"

    #: the compiled form of ``_loss`` (one pass for the curves), if there is one
    loss_code: ClassVar[Loss | None] = None
    #: ``d`` with ``_loss(c y, c p) = c**d _loss(y, p)`` (2 for a squared error)
    degree: ClassVar[int] = 1
    kinds: ClassVar[tuple[str, ...]] = ("cumulative", "windowed", "fading")

    def __init__(self) -> None:
        self._sum = 0.0
        self._n = 0

    @staticmethod
    def _loss(y_true: np.ndarray, y_pred: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def update(self, y_true: Any, y_pred: Any) -> None:
        self._sum += float(self._loss(np.asarray(y_true), np.asarray(y_pred)))
        self._n += 1

    @staticmethod
    def _finish(mean_loss: np.ndarray) -> np.ndarray:
        """The metric from the (windowed, faded) mean loss: itself, or its root (RMSE)."""
        return mean_loss

    @classmethod
    def _finish_scaled(cls, mean_scaled: np.ndarray) -> np.ndarray:
        """The metric from the mean loss of the inputs scaled by ``2**-SHIFT``."""
        return cls._finish(np.ldexp(mean_scaled, SHIFT * cls.degree))

    @classmethod
    def _in_range(cls, plain: Callable[[], np.ndarray],
                  scaled: Callable[[], np.ndarray]) -> np.ndarray:
        """The metric from the mean loss ``plain()``; where that is not finite (its sum
        overflowed), from the mean loss of the scaled inputs ``scaled()`` instead."""
        with np.errstate(over="ignore", invalid="ignore"):
            values = cls._finish(plain())
            bad = ~np.isfinite(values)
            if not bad.any():
                return values
            return np.where(bad, cls._finish_scaled(scaled()), values)

    def get(self) -> float:
        return float(self._finish(np.float64(self._sum / self._n))) if self._n else 0.0

    @classmethod
    def curve(cls, y_true: np.ndarray, y_pred: np.ndarray, at: np.ndarray,
              context: MetricContext) -> np.ndarray:
        at = np.asarray(at, dtype=np.int64)
        if cls.loss_code is None:
            return cls._in_range(
                lambda: cumulative_loss_at(cls._loss, y_true, y_pred, at, context) / at,
                lambda: cumulative_loss_at(cls._loss, _scaled(y_true), _scaled(y_pred),
                                           at) / at)
        code = cls.loss_code
        return cls._in_range(
            lambda: cumulative_loss_at(code, y_true, y_pred, at, context) / at,
            lambda: cumulative_loss_at(code, y_true, y_pred, at, context,
                                       scaled=True) / at)

    @classmethod
    def windowed_curve(cls, y_true: np.ndarray, y_pred: np.ndarray, at: np.ndarray,
                       window: int, context: MetricContext) -> np.ndarray:
        """The mean loss over the last ``window`` samples at each checkpoint."""
        def mean(scale: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
            sums, counts = windowed_sums(at, window, lambda a, b: (
                cls._loss(scale(y_true[a:b]), scale(y_pred[a:b])),))
            return sums[0] / counts
        return cls._in_range(lambda: mean(_f64), lambda: mean(_scaled))

    @classmethod
    def fading_curve(cls, y_true: np.ndarray, y_pred: np.ndarray, at: np.ndarray,
                     alpha: float, context: MetricContext) -> np.ndarray:
        """Gama et al. (2013), eq. (4): the faded loss sum over the faded count."""
        def mean(scale: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
            sums, weights = faded_sums(at, alpha, lambda a, b: (
                cls._loss(scale(y_true[a:b]), scale(y_pred[a:b])),))
            return sums[0] / weights
        return cls._in_range(lambda: mean(_f64), lambda: mean(_scaled))


@register_metric("mse")
class MSE(RegressionMetric):
    """Mean squared prediction error over the samples so far."""

    label = "MSE"
    loss_code = Loss.SQUARED
    degree = 2

    @staticmethod
    def _loss(y_true: np.ndarray, y_pred: np.ndarray) -> np.ndarray:
        return (y_true - y_pred) ** 2


@register_metric("mae")
class MAE(RegressionMetric):
    """Mean absolute prediction error over the samples so far."""

    label = "MAE"
    loss_code = Loss.ABSOLUTE

    @staticmethod
    def _loss(y_true: np.ndarray, y_pred: np.ndarray) -> np.ndarray:
        return np.abs(y_true - y_pred)


@register_metric("rmse")
class RMSE(RegressionMetric):
    """Root mean squared prediction error over the samples so far (the root of the MSE,
    windowed and faded alike: the root of the windowed or faded MSE)."""

    label = "RMSE"
    loss_code = Loss.SQUARED
    degree = 2

    @staticmethod
    def _loss(y_true: np.ndarray, y_pred: np.ndarray) -> np.ndarray:
        return (y_true - y_pred) ** 2

    @staticmethod
    def _finish(mean_loss: np.ndarray) -> np.ndarray:
        return np.sqrt(mean_loss)

    @classmethod
    def _finish_scaled(cls, mean_scaled: np.ndarray) -> np.ndarray:
        return np.ldexp(np.sqrt(mean_scaled), SHIFT)  # the root of 2**(2 SHIFT), exact


def r2_value(ss_res: np.ndarray, ss_tot: np.ndarray) -> np.ndarray:
    """``1 - ss_res / ss_tot``; where ``ss_tot == 0`` (every target so far equal) 1.0 for
    exact predictions and 0.0 otherwise, as scikit-learn's ``r2_score``."""
    ss_res = np.asarray(ss_res, dtype=np.float64)
    ss_tot = np.asarray(ss_tot, dtype=np.float64)
    flat = ss_tot == 0
    safe = np.where(flat, 1.0, ss_tot)
    return np.where(flat, np.where(ss_res == 0, 1.0, 0.0), 1.0 - ss_res / safe)


@register_metric("r2")
class R2(Metric):
    """Coefficient of determination of the predictions so far, ``R² = 1 - SS_res/SS_tot``
    with ``SS_tot`` the targets' sum of squares around their mean over the same samples
    (at step ``t``: the mean of ``y_1..y_t``), i.e. scikit-learn's ``r2_score`` of the
    prefix. Windowed: over the window's samples and their mean. Faded: every sum weighted
    by ``alpha**age`` (faded sums of ``y``, ``y²`` and the squared residual), the mean the
    faded mean. With a constant target so far, 1.0 for exact predictions, else 0.0."""

    task: ClassVar[str] = "regression"
    label = "R²"
    bigger_is_better: ClassVar[bool] = True
    precision: ClassVar[int] = 4
    notation: ClassVar[str] = "fixed"
    kinds: ClassVar[tuple[str, ...]] = ("cumulative", "windowed", "fading")

    @classmethod
    def curve(cls, y_true: np.ndarray, y_pred: np.ndarray, at: np.ndarray,
              context: MetricContext) -> np.ndarray:
        return cls.fading_curve(y_true, y_pred, at, 1.0, context)

    @classmethod
    def windowed_curve(cls, y_true: np.ndarray, y_pred: np.ndarray, at: np.ndarray,
                       window: int, context: MetricContext) -> np.ndarray:
        at = np.asarray(at, dtype=np.int64)
        origin = target_origin(y_true[:int(at[-1])] if at.size else y_true[:0])

        def sums(scale: Scale) -> tuple[np.ndarray, np.ndarray]:
            ss_res = np.empty(at.shape)
            ss_tot = np.empty(at.shape)
            ref = float(scale(np.array([origin]))[0])
            for k, stop in enumerate(at.tolist()):
                start = max(0, stop - window)
                y, p = scale(y_true[start:stop]), scale(y_pred[start:stop])
                ss_res[k] = np.sum((y - p) ** 2)
                y = y - ref  # the window's mean of targets far from zero keeps its digits
                ss_tot[k] = 0.0 if y.min() == y.max() else np.sum((y - y.mean()) ** 2)
            return ss_res, ss_tot
        return _r2_in_range(sums)

    @classmethod
    def fading_curve(cls, y_true: np.ndarray, y_pred: np.ndarray, at: np.ndarray,
                     alpha: float, context: MetricContext) -> np.ndarray:
        """Faded (``alpha = 1``: plain) sums at the checkpoints: the squared residuals
        summed block by block, the targets' weighted mean and centred sum of squares
        merged block by block (Chan, Golub and LeVeque 1979, weighted form)."""
        at = np.asarray(at, dtype=np.int64)
        origin = target_origin(y_true[:int(at[-1])] if at.size else y_true[:0])

        def sums(scale: Scale) -> tuple[np.ndarray, np.ndarray]:
            ss_res = np.empty(at.shape)
            ss_tot = np.empty(at.shape)
            res = weight = mean = m2 = 0.0
            ref = float(scale(np.array([origin]))[0])
            for k, start, stop in _blocks(at):
                y, p = scale(y_true[start:stop]), scale(y_pred[start:stop])
                w = _weights(alpha, stop - start)
                decay = alpha ** (stop - start)
                res = decay * res + weighted_sum(w, (y - p) ** 2)
                # the spread around the mean does not depend on the origin (``y - 0.0``
                # is ``y``: the bits of targets near zero are those of no shift)
                weight, mean, m2 = _merge_moments(decay * weight, mean, decay * m2, w,
                                                  y - ref)
                if k is not None:
                    ss_res[k], ss_tot[k] = res, m2
            return ss_res, ss_tot
        return _r2_in_range(sums)


#: the inputs as float64 (``_f64``) or scaled by ``2**-SHIFT`` (``_scaled``)
Scale = Callable[[np.ndarray], np.ndarray]


def _parts(plain: np.ndarray, scaled: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mantissa and exponent of a sum of squares: ``plain`` where it is finite, else the
    sum of the scaled inputs' squares times ``2**(2 SHIFT)``."""
    ok = np.isfinite(plain)
    mantissa, exponent = np.frexp(np.where(ok, plain, scaled))
    return mantissa, exponent + np.where(ok, 0, 2 * SHIFT)


def _r2_in_range(sums: Callable[[Scale], tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    """R² from ``sums(scale) -> (ss_res, ss_tot)``; where either overflowed (targets and
    errors near 1e300), from the ratio of the finite sums and those of the scaled inputs."""
    with np.errstate(over="ignore", invalid="ignore"):
        ss_res, ss_tot = sums(_f64)
        values = r2_value(ss_res, ss_tot)
        bad = (~np.isfinite(ss_res) | ~np.isfinite(ss_tot)) & (ss_tot != 0)
        if not bad.any():
            return values
        res_scaled, tot_scaled = sums(_scaled)
        m_res, e_res = _parts(ss_res, res_scaled)
        m_tot, e_tot = _parts(ss_tot, tot_scaled)
        flat = m_tot == 0
        ratio = np.ldexp(m_res / np.where(flat, 1.0, m_tot), e_res - e_tot)
        again = np.where(flat, np.where(m_res == 0, 1.0, 0.0), 1.0 - ratio)
        return np.where(bad, again, values)


# --------------------------------------------------------------------------------------
# Windowed and faded sums
# --------------------------------------------------------------------------------------

#: the per-sample terms of samples ``start..stop-1`` (one array per sum a metric needs)
Terms = Callable[[int, int], tuple[np.ndarray, ...]]


def _f64(a: np.ndarray) -> np.ndarray:
    return np.asarray(a, dtype=np.float64)


def _blocks(at: np.ndarray) -> Iterator[tuple[int | None, int, int]]:
    """``(k, start, stop)`` pieces of ``0..at[-1]`` in order, at most ``_BLOCK`` long,
    ending at every checkpoint: ``k`` is the checkpoint a piece ends at, else ``None``."""
    start = 0
    for k, stop in enumerate(np.asarray(at, dtype=np.int64).tolist()):
        while stop - start > _BLOCK:
            yield None, start, start + _BLOCK
            start += _BLOCK
        yield k, start, stop
        start = stop


def _weights(alpha: float, n: int) -> np.ndarray:
    """``alpha**(n-1), .., alpha, 1``: the weights of ``n`` samples, the last the newest
    (each power taken directly, so no error accumulates along the block)."""
    if alpha == 1.0:
        return np.ones(n)
    return alpha ** np.arange(n - 1, -1, -1, dtype=np.float64)


#: targets whose first value is more than ``2**ORIGIN_BITS`` times their range from zero are
#: centred on it (:func:`target_origin`)
ORIGIN_BITS = 20


def target_origin(y: np.ndarray) -> float:
    """The origin R²'s targets are taken from before their spread is summed (the
    cumulative and faded moments merged block by block, a window's mean): the first
    target when the targets sit far from zero relative to their range
    (``|y_0| > 2**20 (max - min)``), else ``0.0``. Merged around a running mean near
    ``1e12``, the means' rounding (an ulp of ``1e12`` is ``1.2e-4``) had cost ``SS_tot``
    five digits on targets ``1e12 + 0..4`` (R² -13.44381 for -13.44374; windowed, at
    ``1e15``, 1 % off); taken from the first target (known from the first step on) they
    keep their digits. Targets near zero (every committed stream's first value is within
    a few times their range) are not shifted, so their R² keeps its bits."""
    y = np.asarray(y, dtype=np.float64)
    if not y.size:
        return 0.0
    with np.errstate(over="ignore", invalid="ignore"):
        span = float(np.max(y)) - float(np.min(y))
    y0 = float(y[0])
    if not (np.isfinite(span) and np.isfinite(y0)) or abs(y0) <= np.ldexp(span, ORIGIN_BITS):
        return 0.0
    return y0


def weighted_sum(w: np.ndarray, values: np.ndarray) -> float:
    """``sum_i w_i values_i`` as NumPy's pairwise sum of the rounded products, never BLAS:
    the same bits on every CPU. ``np.dot`` (BLAS ``ddot``) blocks and fuses differently
    under each OpenBLAS kernel: the committed R² of the regression suite, made under the
    Haswell kernel, differed by up to 1.1e-13 under SkylakeX, and the faded and cumulative
    sums of this module differed under each of four kernels."""
    return float(np.sum(np.multiply(w, values)))


def _merge_moments(weight: float, mean: float, m2: float, w: np.ndarray,
                   y: np.ndarray) -> tuple[float, float, float]:
    """Total weight, weighted mean and weighted centred sum of squares of the samples
    summarised by ``(weight, mean, m2)`` followed by ``y`` with weights ``w``."""
    wb = float(w.sum())
    if wb == 0.0:
        return weight, mean, m2
    if y.min() == y.max():  # a constant block: exact mean, no rounding in the spread
        mb, m2b = float(y[0]), 0.0
    else:
        mb = weighted_sum(w, y) / wb
        m2b = weighted_sum(w, (y - mb) ** 2)
    if weight == 0.0:
        return wb, mb, m2b
    total = weight + wb
    delta = mb - mean
    return (total, mean + delta * wb / total,
            m2 + m2b + delta * delta * weight * wb / total)


def windowed_sums(at: np.ndarray, window: int,
                  terms: Terms) -> tuple[list[np.ndarray], np.ndarray]:
    """For every checkpoint ``T`` of ``at``, each term summed over samples
    ``max(0, T - window)..T-1`` (that window alone), and the window's sample count."""
    at = np.asarray(at, dtype=np.int64)
    sums = [np.empty(at.shape) for _ in terms(0, 0)]
    counts = np.minimum(at, window).astype(np.float64)
    for k, stop in enumerate(at.tolist()):
        for i, values in enumerate(terms(max(0, stop - window), stop)):
            sums[i][k] = np.sum(values)
    return sums, counts


def faded_sums(at: np.ndarray, alpha: float,
               terms: Terms) -> tuple[list[np.ndarray], np.ndarray]:
    """For every checkpoint ``T``, each term summed with weight ``alpha**(T-1-i)`` for
    sample ``i < T`` (Gama et al. 2013, eq. (4): ``S_i = L_i + alpha S_{i-1}``), and the
    faded count ``sum alpha**(T-1-i)``; carried block by block with the block's exact
    decay ``alpha**len``."""
    at = np.asarray(at, dtype=np.int64)
    sums = [np.empty(at.shape) for _ in terms(0, 0)]
    weights = np.empty(at.shape)
    carry = [0.0] * len(sums)
    total = 0.0
    for k, start, stop in _blocks(at):
        w = _weights(alpha, stop - start)
        decay = alpha ** (stop - start)
        for i, values in enumerate(terms(start, stop)):
            carry[i] = decay * carry[i] + weighted_sum(w, values)
        total = decay * total + float(w.sum())
        if k is not None:
            weights[k] = total
            for i, value in enumerate(carry):
                sums[i][k] = value
    return sums, weights


DEFAULT_METRICS = {
    "classification": ["oca", "bacc", "avrbacc", "f1", "mcc"],
    "regression": ["mse", "mae"],
}
