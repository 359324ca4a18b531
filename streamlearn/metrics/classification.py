"""Prequential classification metrics (Online-BLS paper, Appendix C): final values and
curves.

Every classification metric here is a function of three cumulative per-class counters
after step ``t``: ``T_i`` (samples of true class ``i``), ``P_i`` (samples predicted as
``i``) and ``D_i`` (samples of class ``i`` predicted correctly); kappa_m and kappa_t count,
besides, the samples a reference classifier gets right. The runner stores the
predictions of a run, so a curve is computed afterwards at any set of checkpoints in
``O(n + K c)`` for ``K`` checkpoints; AVRBACC needs BACC at every step and is ``O(n)``.

Every one of them except AVRBACC also has a windowed form (the same formula over the
counters of the last ``w`` samples) and a faded one (over counters faded by ``alpha``,
Gama et al. 2013), reported in a record's ``windowed`` and ``fading`` blocks. The kappa
family (``kappa``, ``kappa_m``, ``kappa_t``) compares the accuracy with chance and with
the reference classifiers of :mod:`streamlearn.kernels.reference_rules`.

Each metric is available two ways:

* as a class with ``update(y_true, y_pred)`` / ``get()`` for incremental use, and
* as ``Metric.curve(y_true, y_pred, at, context)`` giving the value after each step
  ``t`` in ``at`` (1-based counts of samples seen), which the protocols use. The
  interface (units, display precision, context) is :class:`streamlearn.base.Metric`.

References: C. Lei et al., *Online-BLS*, Appendix C, eqs. (C.1)–(C.6); J. Gama, R.
Sebastião, P. P. Rodrigues, On evaluating stream learning algorithms, Machine Learning
90(3), 2013 (fading factors); A. Bifet, G. de Francisci Morales, J. Read, G. Holmes,
B. Pfahringer, Efficient online evaluation of big data stream classifiers, KDD 2015
(kappa, kappa_m); I. Žliobaitė, A. Bifet, J. Read, B. Pfahringer, G. Holmes, Evaluation
methods and decision theory for classification of streaming data with temporal
dependence, Machine Learning 98(3), 2015 (kappa_t).
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from streamlearn.base import Metric, MetricContext
from streamlearn.kernels.reference_rules import (
    majority_class_predictions,
    no_change_predictions,
)
from streamlearn.registry import register_metric

# --------------------------------------------------------------------------------------
# Counters: cumulative, windowed and faded
# --------------------------------------------------------------------------------------


def _checked_positions(at: np.ndarray, n: int) -> np.ndarray:
    at = np.asarray(at, dtype=np.int64)
    if at.size and (np.any(np.diff(at) <= 0) or at[0] < 1 or at[-1] > n):
        raise ValueError("checkpoints must be increasing and within 1..n")
    return at


def label_counts(labels: np.ndarray, n_bins: int, at: np.ndarray, *,
                 window: int | None = None, alpha: float | None = None) -> np.ndarray:
    """How often each value ``0..n_bins-1`` occurs in ``labels``, ``(len(at), n_bins)``,
    after each of the first ``at[k]`` samples (``at`` increasing, in ``1..len(labels)``).

    * cumulative (neither ``window`` nor ``alpha``): over the first ``at[k]`` samples,
      int64;
    * ``window``: over the last ``window`` samples only (all of them while
      ``at[k] <= window``): the cumulative count at ``at[k]`` minus the one at
      ``at[k] - window``, int64, so exact;
    * ``alpha``: faded (Gama et al. 2013), the sample ``a`` steps before the last weighs
      ``alpha**a``, i.e. ``F_t = alpha F_{t-1} + e_t``, float64. Summed segment by
      segment between checkpoints: ``F = alpha**l F + sum_j alpha**(stop-1-j) e_j``, weights
      at most 1 and one product per checkpoint, so no ``alpha**-t`` blows up: at
      ``n = 1e6, alpha = 0.9999`` the faded OCA is within 7e-16 (relative) of exactly
      rounded sums, where the step-by-step recursion (``lfilter``) is within 9e-13.

    ``O(n + K n_bins)`` for ``K`` checkpoints.
    """
    labels = np.asarray(labels, dtype=np.int64)
    at = _checked_positions(at, labels.size)
    if window is not None and alpha is not None:
        raise ValueError("give a window or a fading factor, not both")
    if window is not None:
        if window < 1:
            raise ValueError(f"the window must be at least 1 sample; got {window}")
        lo = at - int(window)
        pos = np.union1d(at, lo[lo > 0])
        cum = np.vstack([np.zeros((1, n_bins), dtype=np.int64),
                         label_counts(labels, n_bins, pos)])
        lo_rows = np.where(lo > 0, np.searchsorted(pos, lo) + 1, 0)
        return cum[np.searchsorted(pos, at) + 1] - cum[lo_rows]
    out = np.zeros((at.size, n_bins), dtype=np.int64 if alpha is None else np.float64)
    if alpha is not None:
        if not 0.0 < alpha <= 1.0:
            raise ValueError(f"the fading factor must be in (0, 1]; got {alpha}")
        longest = int(np.diff(at, prepend=0).max(initial=0))
        decay = float(alpha) ** np.arange(longest - 1, -1, -1, dtype=np.float64)
    run = np.zeros(n_bins, dtype=out.dtype)
    start = 0
    for k, stop in enumerate(at):
        segment = labels[start:stop]
        if alpha is None:
            run += np.bincount(segment, minlength=n_bins)
        else:
            length = int(stop - start)
            weights = decay[longest - length:]
            run = run * float(alpha) ** length + np.bincount(segment, weights=weights,
                                                              minlength=n_bins)
        out[k] = run
        start = stop
    return out


def class_counters(
    y_true: np.ndarray, y_pred: np.ndarray, n_classes: int, at: np.ndarray, *,
    window: int | None = None, alpha: float | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-class counters ``T, P, D`` (each ``(len(at), n_classes)``) after ``at[k]``
    samples: cumulative, over the last ``window`` samples, or faded by ``alpha``
    (:func:`label_counts`)."""
    y_true = np.asarray(y_true, dtype=np.int64)
    y_pred = np.asarray(y_pred, dtype=np.int64)
    kind = {"window": window, "alpha": alpha}
    T = label_counts(y_true, n_classes, at, **kind)
    P = label_counts(y_pred, n_classes, at, **kind)
    hits = np.where(y_true == y_pred, y_true, n_classes)  # a miss goes to an extra bin
    D = label_counts(hits, n_classes + 1, at, **kind)[:, :n_classes]
    return T, P, D


def cumulative_counts(
    y_true: np.ndarray, y_pred: np.ndarray, n_classes: int, at: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-class counters ``T, P, D`` (each ``(len(at), n_classes)``) after ``at[k]`` samples.

    ``at`` must be increasing, with values in ``1..len(y_true)``.
    """
    return class_counters(y_true, y_pred, n_classes, at)


def bacc_every_step(y_true: np.ndarray, y_pred: np.ndarray) -> np.ndarray:
    """BACC_t for every t = 1..n (eq. C.3, averaged over the classes seen so far), O(n).

    When a sample of class ``i`` arrives only the term ``D_i/T_i`` changes, so
    ``S_t = sum_i D_i/T_i`` is a cumulative sum of per-occurrence changes.
    """
    y_true = np.asarray(y_true, dtype=np.int64)
    correct = (y_true == np.asarray(y_pred, dtype=np.int64)).astype(np.float64)
    n = y_true.size
    delta = np.zeros(n, dtype=np.float64)
    seen = np.zeros(n, dtype=np.int64)
    order = np.argsort(y_true, kind="stable")
    sorted_labels = y_true[order]
    bounds = np.flatnonzero(np.diff(sorted_labels)) + 1
    for idx in np.split(order, bounds):
        if idx.size == 0:
            continue
        recall = np.cumsum(correct[idx]) / np.arange(1, idx.size + 1)
        delta[idx] = np.diff(recall, prepend=0.0)
        seen[idx[0]] = 1
    return np.cumsum(delta) / np.cumsum(seen)


# --------------------------------------------------------------------------------------
# Metric classes
# --------------------------------------------------------------------------------------


class CountMetric(Metric):
    """A classification metric that is a function of the per-class counters ``T, P, D``.

    Subclasses implement ``_from_counts``. Values are fractions in [0, 1] (MCC and the
    kappas in [-1, 1], the kappas below -1 when much worse than their reference); tables
    and plots show them in percent with two decimals. Instances also work incrementally:
    ``update(y_true, y_pred)`` then ``get()``.

    The same formula over windowed counters (the last ``w`` samples) is the windowed
    metric, over faded counters (Gama et al. 2013, every counter ``F_t = alpha F_{t-1} +
    e_t``) the faded one (:func:`label_counts`); for OCA the faded form is exactly Gama et
    al.'s fading prequential accuracy ``S_alpha / B_alpha``, and MOA's
    ``FadingFactorClassificationPerformanceEvaluator`` fades its estimators the same way.
    A metric over the classes seen so far (BACC) takes, in these forms, the classes seen
    in the window (of non-zero faded weight).
    """

    task: ClassVar[str] = "classification"
    unit: ClassVar[str] = "%"
    scale: ClassVar[float] = 100.0
    precision: ClassVar[int] = 2
    notation: ClassVar[str] = "fixed"
    kinds: ClassVar[tuple[str, ...]] = ("cumulative", "windowed", "fading")

    def __init__(self, n_classes: int) -> None:
        self.n_classes = n_classes
        self._t = np.zeros(n_classes, dtype=np.int64)
        self._p = np.zeros(n_classes, dtype=np.int64)
        self._d = np.zeros(n_classes, dtype=np.int64)
        self._n = 0

    def update(self, y_true: int, y_pred: int) -> None:
        self._t[y_true] += 1
        self._p[y_pred] += 1
        if y_true == y_pred:
            self._d[y_true] += 1
        self._n += 1

    def get(self) -> float:
        return float(self._from_counts(self._t[None], self._p[None], self._d[None])[0])

    @classmethod
    def _from_counts(cls, T: np.ndarray, P: np.ndarray, D: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    @classmethod
    def _values(cls, y_true: np.ndarray, y_pred: np.ndarray, n_classes: int,
                at: np.ndarray, window: int | None, alpha: float | None,
                context: MetricContext | None = None) -> np.ndarray:
        """The metric at ``at`` from counters of the kind ``window``/``alpha`` say."""
        return cls._from_counts(*class_counters(y_true, y_pred, n_classes, at,
                                                window=window, alpha=alpha))

    @classmethod
    def curve(cls, y_true: np.ndarray, y_pred: np.ndarray, at: np.ndarray,
              context: MetricContext) -> np.ndarray:
        """Metric value after each of the first ``at[k]`` samples."""
        return cls._values(y_true, y_pred, _n_classes(y_true, y_pred, context), at,
                           None, None, context)

    @classmethod
    def windowed_curve(cls, y_true: np.ndarray, y_pred: np.ndarray, at: np.ndarray,
                       window: int, context: MetricContext) -> np.ndarray:
        """The metric over the last ``window`` samples before each ``at[k]``."""
        return cls._values(y_true, y_pred, _n_classes(y_true, y_pred, context), at,
                           int(window), None, context)

    @classmethod
    def fading_curve(cls, y_true: np.ndarray, y_pred: np.ndarray, at: np.ndarray,
                     alpha: float, context: MetricContext) -> np.ndarray:
        """The metric over counters faded by ``alpha`` after each ``at[k]``."""
        return cls._values(y_true, y_pred, _n_classes(y_true, y_pred, context), at,
                           None, float(alpha), context)


def _n_classes(y_true: np.ndarray, y_pred: np.ndarray, context: MetricContext) -> int:
    """The stream's class count, or (no context) one more than the largest label seen."""
    if context.n_classes is not None:
        return int(context.n_classes)
    return int(max(np.max(y_true, initial=0), np.max(y_pred, initial=0))) + 1


def _safe_div(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    out = np.zeros(np.broadcast(num, den).shape, dtype=np.float64)
    np.divide(num, den, out=out, where=den != 0)
    return out


@register_metric("oca")
class OCA(CountMetric):
    """Online cumulative accuracy, eq. (C.1): fraction of correct predictions so far."""

    label = "OCA"

    @classmethod
    def _from_counts(cls, T: np.ndarray, P: np.ndarray, D: np.ndarray) -> np.ndarray:
        return _safe_div(D.sum(axis=1), T.sum(axis=1))


@register_metric("oce")
class OCE(CountMetric):
    """Online cumulative error, eq. (C.2): 1 − OCA (the curves of Figs. 2–4)."""

    label = "OCE"
    bigger_is_better = False

    @classmethod
    def _from_counts(cls, T: np.ndarray, P: np.ndarray, D: np.ndarray) -> np.ndarray:
        return 1.0 - OCA._from_counts(T, P, D)


@register_metric("mistake_rate")
class MistakeRate(OCE):
    """Mistake rate (FORKS paper): fraction of wrong predictions so far (equals OCE)."""

    label = "Mistake rate"


@register_metric("bacc")
class BACC(CountMetric):
    """Balanced accuracy, eq. (C.3): mean cumulative recall over the classes seen so far."""

    label = "BACC"

    @classmethod
    def _from_counts(cls, T: np.ndarray, P: np.ndarray, D: np.ndarray) -> np.ndarray:
        seen = (T > 0).sum(axis=1)
        return _safe_div(_safe_div(D, T).sum(axis=1), seen)


@register_metric("avrbacc")
class AVRBACC(CountMetric):
    """Average balanced accuracy, eq. (C.4): mean of BACC_k over steps k = 1..t.

    Cumulative only (listed under ``not_supported`` in a record's windowed and fading
    blocks): it is already an average over steps of a cumulative quantity, not a function
    of per-sample counters, so "over the last w samples" has no single meaning (the mean
    of the cumulative BACC over the last w steps, or of the windowed BACC?) and neither
    is what MOA or River report; the windowed and faded BACC are.
    """

    label = "AVRBACC"
    kinds: ClassVar[tuple[str, ...]] = ("cumulative",)

    def __init__(self, n_classes: int) -> None:
        super().__init__(n_classes)
        self._sum = 0.0

    def update(self, y_true: int, y_pred: int) -> None:
        super().update(y_true, y_pred)
        self._sum += BACC._from_counts(self._t[None], self._p[None], self._d[None])[0]

    def get(self) -> float:
        return self._sum / self._n if self._n else 0.0

    @classmethod
    def curve(cls, y_true: np.ndarray, y_pred: np.ndarray, at: np.ndarray,
              context: MetricContext) -> np.ndarray:
        b = bacc_every_step(y_true, y_pred)
        avr = np.cumsum(b) / np.arange(1, b.size + 1)
        return avr[np.asarray(at, dtype=np.int64) - 1]


@register_metric("f1")
class MacroF1(CountMetric):
    """Macro F1, eq. (C.5): mean over all c classes of per-class F1 (0 when undefined)."""

    label = "F1"

    @classmethod
    def _from_counts(cls, T: np.ndarray, P: np.ndarray, D: np.ndarray) -> np.ndarray:
        # F1_i = 2 TP / (2 TP + FP + FN) = 2 D_i / (P_i + T_i)
        return _safe_div(2.0 * D, (P + T).astype(np.float64)).mean(axis=1)


@register_metric("mcc")
class MCC(CountMetric):
    """Matthews correlation coefficient, eq. (C.6), multi-class (Gorodkin) form."""

    label = "MCC"

    @classmethod
    def _from_counts(cls, T: np.ndarray, P: np.ndarray, D: np.ndarray) -> np.ndarray:
        Tf, Pf = T.astype(np.float64), P.astype(np.float64)
        s = Tf.sum(axis=1)
        corr = D.sum(axis=1).astype(np.float64)
        num = corr * s - (Pf * Tf).sum(axis=1)
        den = np.sqrt((s**2 - (Pf**2).sum(axis=1)) * (s**2 - (Tf**2).sum(axis=1)))
        return _safe_div(num, den)


# --------------------------------------------------------------------------------------
# The kappa family (Bifet et al. 2015; Žliobaitė et al. 2015)
# --------------------------------------------------------------------------------------
#
# Where a kappa's denominator is 0 its value is 0, not NaN: Cohen's kappa with p_e = 1
# (every label and every prediction one class, so p_0 = 1 too), kappa_m/kappa_t with a
# reference that was never wrong (in the window). MOA computes (p0 - pc) / (1 - pc) in
# doubles there, which gives NaN (0/0) or -Infinity (0 before any instance). We choose 0
# because a learner cannot beat a perfect reference, so "no better than the reference"
# is what the number can say; because it keeps the reference learners at exactly 0 on
# every prefix, window and fading factor (their only undefined case is 0/0); and because
# NaN or -inf would poison the summaries' mean ± SD over seeds. It is the convention of
# MCC here and of scikit-learn's matthews_corrcoef. (When the reference is perfect and the
# learner is not, the accuracy curve shows what kappa_m/kappa_t cannot.)
#
# Units: like MOA and CapyMOA, which print "Kappa Statistic (percent)", "Kappa M Statistic
# (percent)" and "Kappa Temporal Statistic (percent)", tables and plots show the kappas in
# percent with two decimals (records hold fractions, as for every count metric).


@register_metric("kappa")
class Kappa(CountMetric):
    """Cohen's kappa: accuracy beyond chance, (p0 - pe) / (1 - pe) (Bifet et al. 2015).

    ``p0`` is the accuracy and ``pe = sum_i (T_i/n)(P_i/n)`` the agreement of chance.
    Computed as ``(n C - sum_i T_i P_i) / (n^2 - sum_i T_i P_i)`` (``C = sum_i D_i``), in
    integers for the cumulative and windowed forms; 0 when ``pe = 1`` (then ``p0 = 1``
    too). Equals scikit-learn's ``cohen_kappa_score`` (tested) and MOA's
    ``getKappaStatistic``, the same formula; both give NaN where ``pe = 1``.
    """

    label = "Kappa"

    @classmethod
    def _from_counts(cls, T: np.ndarray, P: np.ndarray, D: np.ndarray) -> np.ndarray:
        n = T.sum(axis=1)
        chance = (T * P).sum(axis=1)
        num = n * D.sum(axis=1) - chance
        den = n * n - chance
        return _safe_div(num.astype(np.float64), den.astype(np.float64))


class _ReferenceKappa(CountMetric):
    """Kappa against a reference classifier: ``(p0 - pr) / (1 - pr)``, ``pr`` the
    reference's prequential accuracy on the same samples (the same window, the same
    fading). Counting the samples that only the learner gets right (``A``), that only the
    reference gets right (``B``) and that neither gets right (``N``), it is
    ``(A - B) / (A + N)``, the form used here: exact for a learner that predicts what the
    reference does (``A = B = 0``), and 0 when the reference is never wrong (``A + N = 0``).

    Subclasses give the reference: its state before the stream (:meth:`_initial_state`)
    and its predictions on labels from a state (:meth:`_predict`), the rules of
    :mod:`streamlearn.kernels.reference_rules`, always the online rules over the whole
    past (a windowed or faded kappa_m still compares with the majority of all labels
    so far).
    """

    def __init__(self, n_classes: int) -> None:
        super().__init__(n_classes)
        self._cases = np.zeros(4, dtype=np.int64)
        self._state = self._initial_state(n_classes)

    @classmethod
    def _initial_state(cls, n_classes: int) -> Any:
        raise NotImplementedError

    @classmethod
    def _predict(cls, y_true: np.ndarray, state: Any) -> tuple[np.ndarray, Any]:
        """The reference's predictions of ``y_true`` and its state after them."""
        raise NotImplementedError

    @staticmethod
    def _ratio(cases: np.ndarray) -> np.ndarray:
        # cases[:, code], code = learner right + 2 * reference right
        return _safe_div((cases[:, 1] - cases[:, 2]).astype(np.float64),
                         (cases[:, 0] + cases[:, 1]).astype(np.float64))

    def update(self, y_true: int, y_pred: int) -> None:
        super().update(y_true, y_pred)
        ref, self._state = self._predict(np.array([y_true]), self._state)
        self._cases[int(y_true == y_pred) + 2 * int(ref[0] == y_true)] += 1

    def get(self) -> float:
        return float(self._ratio(self._cases[None])[0])

    @classmethod
    def reference_predictions(cls, y_true: np.ndarray, n_classes: int,
                              context: MetricContext | None = None) -> np.ndarray:
        """The reference's prediction of each sample of ``y_true``. When the scored samples
        are a subset of a stream (a validation copy's test samples, the prequential part of
        a run with held-out tests), the protocol gives the whole stream's labels
        (``stream_labels``) and the positions of the scored ones (``scored_index``) in the
        context: the reference then predicts from the stream's past, as the reference
        learners do (no change: the stream's previous label, not the previous scored one)."""
        extra = context.extra if context is not None else {}
        labels, index = extra.get("stream_labels"), extra.get("scored_index")
        if labels is None or index is None:
            return cls._predict(y_true, cls._initial_state(n_classes))[0]
        full, _ = cls._predict(np.asarray(labels, dtype=np.int64),
                               cls._initial_state(n_classes))
        return full[np.asarray(index, dtype=np.int64)]

    @classmethod
    def _values(cls, y_true: np.ndarray, y_pred: np.ndarray, n_classes: int,
                at: np.ndarray, window: int | None, alpha: float | None,
                context: MetricContext | None = None) -> np.ndarray:
        y_true = np.asarray(y_true, dtype=np.int64)
        reference = cls.reference_predictions(y_true, n_classes, context)
        codes = (y_true == np.asarray(y_pred, dtype=np.int64)).astype(np.int64)
        codes += 2 * (reference == y_true)
        return cls._ratio(label_counts(codes, 4, at, window=window, alpha=alpha))


def stream_subset_extra(stream_labels: np.ndarray, scored_index: np.ndarray,
                        ) -> dict[str, np.ndarray]:
    """The :class:`~streamlearn.base.MetricContext` extras of scored samples that are a
    subset of a stream (a validation copy's tests, the prequential part of a run with
    held-out tests, one held-out test): the whole stream's labels and the scored samples'
    positions in it, from which the reference kappas (``kappa_m``, ``kappa_t``) predict
    as their reference learners do, from the stream's past (without them each subset's
    reference starts from nothing: a held-out test of an all-1 stream had given the
    majority class learner kappa_m = 100 %)."""
    return {"stream_labels": stream_labels,
            "scored_index": np.asarray(scored_index, dtype=np.int64)}


@register_metric("kappa_m")
class KappaM(_ReferenceKappa):
    """Kappa M: accuracy beyond the majority class's, (p0 - pm) / (1 - pm) (Bifet et al.
    2015).

    ``pm`` is the accuracy of the majority-class classifier; the learner
    ``majority_class`` scores exactly 0. The reference predicts sample ``t`` as the most
    frequent true label among samples ``< t`` (ties: the smallest label; before any: 0).
    MOA's
    ``BasicClassificationPerformanceEvaluator.getKappaMStatistic`` breaks ties and starts
    the same way, but counts the label of sample ``t`` before taking the majority that
    predicts it (its majority peeks at the answer, so MOA's own ``MajorityClass`` does not
    get 0), and its windowed and fading evaluators take the majority of the windowed or
    faded counts; ours is the online rule a learner can follow, over all labels so far.
    """

    label = "Kappa M"

    @classmethod
    def _initial_state(cls, n_classes: int) -> np.ndarray:
        return np.zeros(n_classes, dtype=np.int64)

    @classmethod
    def _predict(cls, y_true: np.ndarray, state: np.ndarray) -> tuple[np.ndarray, Any]:
        counts = state.copy()
        return majority_class_predictions(y_true, counts), counts


@register_metric("kappa_t")
class KappaT(_ReferenceKappa):
    """Kappa T (temporal): accuracy beyond no change's, (p0 - pt) / (1 - pt) (Žliobaitė et
    al. 2015).

    ``pt`` is the accuracy of the no-change classifier; the learner ``no_change`` scores
    exactly 0. The reference predicts sample ``t`` as the true label of sample ``t - 1`` (0 at
    ``t = 0``), as MOA's ``getKappaTemporalStatistic`` does (its ``lastSeenClass`` starts
    at 0).
    """

    label = "Kappa T"

    @classmethod
    def _initial_state(cls, n_classes: int) -> int:
        return 0

    @classmethod
    def _predict(cls, y_true: np.ndarray, state: int) -> tuple[np.ndarray, Any]:
        last = int(y_true[-1]) if y_true.size else state
        return no_change_predictions(y_true, state), last
