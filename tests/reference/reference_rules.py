"""Plain-Python loops of the reference rules (:mod:`streamlearn.kernels.reference_rules`)
and of the kappa statistics built on them, written from the definitions: the oracles of
tests/kernels/test_reference_rules.py and tests/metrics/test_kappa.py."""

from __future__ import annotations

from collections.abc import Sequence


def majority_class_loop(y: Sequence[int], n_classes: int) -> list[int]:
    """Sample t: the label with the most occurrences among y[:t] (smallest on ties, 0
    first)."""
    counts = [0] * n_classes
    out = []
    for label in y:
        best = 0
        for i in range(n_classes):
            if counts[i] > counts[best]:
                best = i
        out.append(best)
        counts[int(label)] += 1
    return out


def no_change_loop(y: Sequence[int]) -> list[int]:
    """Sample t: y[t - 1] (0 for the first)."""
    out, last = [], 0
    for label in y:
        out.append(last)
        last = int(label)
    return out


def kappa_against(y: Sequence[int], p: Sequence[int], reference: Sequence[int]) -> float:
    """(p0 - pr) / (1 - pr) in floats, 0 when pr = 1 (the chosen value)."""
    n = len(y)
    p0 = sum(int(a == b) for a, b in zip(y, p, strict=True)) / n
    pr = sum(int(a == b) for a, b in zip(y, reference, strict=True)) / n
    return 0.0 if pr == 1.0 else (p0 - pr) / (1.0 - pr)
