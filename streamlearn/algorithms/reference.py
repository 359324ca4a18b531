"""The reference classifiers of the kappa statistics: majority class and no change.

They read only the labels, never ``x``. Each follows the one rule of
:mod:`streamlearn.kernels.reference_rules` that the metrics ``kappa_m`` and ``kappa_t``
(:mod:`streamlearn.metrics.classification`) compare with, so ``majority_class`` has
kappa_m = 0 and ``no_change`` has kappa_t = 0 exactly, on any stream, window or fading
factor. MOA's ``MajorityClass`` and ``NoChange`` and River's ``dummy.PriorClassifier`` and
``dummy.NoChangeClassifier`` are the same ideas (MOA's evaluator breaks ties the same way).
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from streamlearn.base import Classifier
from streamlearn.errors import UserError
from streamlearn.kernels.reference_rules import (
    majority_class_predictions,
    no_change_predictions,
)
from streamlearn.registry import register_algorithm

__all__ = ["MajorityClass", "NoChange"]


class _LabelRule(Classifier):
    """What both reference learners share: no parameters, the ``reference`` tag, and the
    label checks of a classifier over ``0..n_classes-1``."""

    tags: ClassVar[frozenset[str]] = frozenset({"reference"})
    _constraints: ClassVar[dict[str, Any]] = {}

    def __init__(self) -> None:
        self._validate_params()

    def _start(self, n_classes: int | None) -> None:
        if n_classes is None or n_classes < 1:
            raise UserError(f"{type(self).__name__} is a classifier and needs "
                            f"n_classes >= 1; got {n_classes!r}.")
        self.n_classes_ = int(n_classes)

    def _check_label(self, y: Any) -> int:
        label = int(y)
        if not 0 <= label < self.n_classes_:
            raise UserError(f"{type(self).__name__} got label {label!r}, expected "
                            f"0..{self.n_classes_ - 1}.")
        return label

    def _check_chunk(self, X: np.ndarray, y: np.ndarray) -> np.ndarray:
        y = np.asarray(y)
        if y.shape != (np.shape(X)[0],):
            raise UserError(f"{type(self).__name__} expected y of shape (n,) for X of "
                            f"{np.shape(X)[0]} rows; got {y.shape}.")
        labels = y.astype(np.int64)
        if labels.size and (labels.min() < 0 or labels.max() >= self.n_classes_
                            or np.any(labels != y)):
            raise UserError(f"{type(self).__name__} got labels outside "
                            f"0..{self.n_classes_ - 1}.")
        return labels


@register_algorithm("majority_class")
class MajorityClass(_LabelRule):
    """Majority class: predicts the most frequent label so far (the reference of kappa_m).

    Sample ``t`` is predicted as the label with the most occurrences among the true labels
    of samples ``< t``; ties go to the smallest label, and before any label it predicts 0
    (:func:`~streamlearn.kernels.reference_rules.majority_class_predictions`). It ignores
    ``x``.

    Attributes
    ----------
    counts_
        (n_classes,) int64: the occurrences of each label learned so far.

    References
    ----------
    [^1]: A. Bifet, G. de Francisci Morales, J. Read, G. Holmes, B. Pfahringer. Efficient
          online evaluation of big data stream classifiers. KDD 2015 (kappa_m).
    """

    def reset(self, n_features: int, n_classes: int | None) -> None:
        """Zero label counts."""
        self._start(n_classes)
        self.counts_ = np.zeros(self.n_classes_, dtype=np.int64)

    def predict_one(self, x: np.ndarray) -> int:
        """The label with the largest count (``np.argmax``: the smallest on ties, 0 when
        nothing was learned)."""
        return int(np.argmax(self.counts_))

    def learn_one(self, x: np.ndarray, y: Any) -> None:
        """Count the label."""
        self.counts_[self._check_label(y)] += 1

    def predict_learn_many(self, X: np.ndarray, y: np.ndarray) -> np.ndarray:
        """Test-then-train over a chunk, vectorised: the predictions of the per-sample
        loop (int64)."""
        return majority_class_predictions(self._check_chunk(X, y), self.counts_)


@register_algorithm("no_change")
class NoChange(_LabelRule):
    """No change: predicts the previous sample's true label (the reference of kappa_t).

    Sample ``t`` is predicted as the true label of sample ``t - 1``, and the first sample
    as 0 (:func:`~streamlearn.kernels.reference_rules.no_change_predictions`). It ignores
    ``x``; on a stream with temporal dependence (long runs of one label, as Electricity)
    it is a strong baseline.

    Attributes
    ----------
    last_
        The last label learned (0 before any).

    References
    ----------
    [^1]: I. Žliobaitė, A. Bifet, J. Read, B. Pfahringer, G. Holmes. Evaluation methods
          and decision theory for classification of streaming data with temporal
          dependence. Machine Learning 98(3), 2015 (kappa_t, the no-change classifier).
    """

    def reset(self, n_features: int, n_classes: int | None) -> None:
        """Forget the last label (predict 0 first)."""
        self._start(n_classes)
        self.last_ = 0

    def predict_one(self, x: np.ndarray) -> int:
        """The last label learned."""
        return self.last_

    def learn_one(self, x: np.ndarray, y: Any) -> None:
        """Remember the label."""
        self.last_ = self._check_label(y)

    def predict_learn_many(self, X: np.ndarray, y: np.ndarray) -> np.ndarray:
        """Test-then-train over a chunk: the labels shifted by one (int64)."""
        labels = self._check_chunk(X, y)
        out = no_change_predictions(labels, self.last_)
        if labels.size:
            self.last_ = int(labels[-1])
        return out
