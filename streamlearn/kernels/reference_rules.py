"""The two reference classifiers of the kappa statistics, as rules on the label sequence:
the one home of each rule, used by the metrics ``kappa_m``/``kappa_t``
(:mod:`streamlearn.metrics.classification`) and by the learners ``majority_class`` and
``no_change`` (:mod:`streamlearn.algorithms.reference`), so that, by definition, the
learner scores exactly 0 on the metric that compares with it.

* **Majority class** (Bifet et al. 2015, the reference of kappa_m): sample ``t`` is
  predicted as the label with the most occurrences among the true labels of samples
  ``< t``; ties go to the smallest label; before any label, 0.
* **No change** (Žliobaitė et al. 2015, the reference of kappa_t): sample ``t`` is
  predicted as the true label of sample ``t - 1``; at ``t = 0``, 0.

Both take the state before the chunk (the label counts, the previous label) and update it,
so a stream processed chunk by chunk gives the predictions of one call over the whole.
Plain NumPy, vectorised (the majority rule in ``O(n log n)`` for the stable sort, ``O(n)``
memory); the plain loops they are tested against are in ``tests/reference/``.
"""

from __future__ import annotations

import numpy as np

__all__ = ["majority_class_predictions", "no_change_predictions"]


def majority_class_predictions(y: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """The majority-class prediction of each sample of ``y`` (int labels ``0..c-1``,
    ``c = counts.size``), given ``counts`` (int64, the occurrences of each label before the
    chunk), which is updated in place.

    How it is vectorised: let ``r_j`` be the count of label ``y_j`` just after sample
    ``j`` and ``L_j = max(max(counts), r_0..r_j)`` the largest count then. A label holds
    the largest count ``L`` exactly when its ``L``-th occurrence is past, so the majority
    after ``j`` is the smallest label among the samples ``i <= j`` with ``r_i = L_j``. With
    ``v_i = -r_i c + y_i`` for those samples (``+inf`` for the others), a new level
    ``L`` gives a ``v`` below every earlier one, so ``min(v_0..v_j) + L_j c`` is that label.
    """
    y = np.asarray(y, dtype=np.int64)
    c = int(counts.size)
    n = y.size
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    # occurrence number (1-based) of each sample among the samples of its label
    order = np.argsort(y, kind="stable")
    sorted_y = y[order]
    starts = np.flatnonzero(np.r_[True, sorted_y[1:] != sorted_y[:-1]])
    lengths = np.diff(np.r_[starts, n])
    occurrence = np.empty(n, dtype=np.int64)
    occurrence[order] = np.arange(n, dtype=np.int64) - np.repeat(starts, lengths) + 1
    rank = counts[y] + occurrence
    top0 = int(counts.max(initial=0))
    level = np.maximum(np.maximum.accumulate(rank), top0)
    v = np.where(rank == level, -rank * c + y, np.iinfo(np.int64).max)
    v0 = -top0 * c + int(np.argmax(counts)) if c else 0
    running = np.minimum.accumulate(np.r_[v0, v[:-1]])
    level_before = np.r_[top0, level[:-1]]
    counts += np.bincount(y, minlength=c)
    return running + level_before * c


def no_change_predictions(y: np.ndarray, previous: int) -> np.ndarray:
    """The no-change prediction of each sample of ``y``: the label before it (``previous``
    for the first sample of the chunk: the chunk before's last label, 0 at the start)."""
    y = np.asarray(y, dtype=np.int64)
    out = np.empty(y.size, dtype=np.int64)
    if y.size:
        out[0] = previous
        out[1:] = y[:-1]
    return out
