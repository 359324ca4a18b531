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
The majority rule is a numba loop (``O(n)``, about 3 ms for 1e6 labels), the no-change
rule a NumPy shift; the plain loops they are tested against are in ``tests/reference/``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["majority_class_predictions", "no_change_predictions"]


@njit(cache=True)
def _majority_class_into(y: np.ndarray, counts: np.ndarray, out: np.ndarray) -> None:
    best = 0
    for i in range(counts.shape[0]):
        if counts[i] > counts[best]:
            best = i
    for t in range(y.shape[0]):
        out[t] = best
        label = y[t]
        counts[label] += 1
        # only the count of ``label`` grew: it is the new majority when it passes the old
        # one, or ties it with a smaller label
        if counts[label] > counts[best] or (counts[label] == counts[best] and label < best):
            best = label


def majority_class_predictions(y: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """The majority-class prediction of each sample of ``y`` (int labels ``0..c-1``,
    ``c = counts.size``), given ``counts`` (int64, the occurrences of each label before the
    chunk), which is updated in place. One pass, ``O(n + c)``."""
    y = np.ascontiguousarray(y, dtype=np.int64)
    if y.size and (y.min() < 0 or y.max() >= counts.size):
        raise ValueError(f"labels must be in 0..{counts.size - 1}")
    if counts.dtype != np.int64 or not counts.flags.c_contiguous:
        raise ValueError("counts must be a contiguous int64 array")
    out = np.empty(y.size, dtype=np.int64)
    _majority_class_into(y, counts, out)
    return out


def no_change_predictions(y: np.ndarray, previous: int) -> np.ndarray:
    """The no-change prediction of each sample of ``y``: the label before it (``previous``
    for the first sample of the chunk: the chunk before's last label, 0 at the start)."""
    y = np.asarray(y, dtype=np.int64)
    out = np.empty(y.size, dtype=np.int64)
    if y.size:
        out[0] = previous
        out[1:] = y[:-1]
    return out
