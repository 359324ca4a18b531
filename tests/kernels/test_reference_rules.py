"""The vectorised reference rules (majority class, no change) against plain loops."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_array_equal

from streamlearn.kernels.reference_rules import (
    majority_class_predictions,
    no_change_predictions,
)
from tests.reference.reference_rules import majority_class_loop, no_change_loop


def _labels(seed: int, n: int, c: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    # skewed and bursty, so the majority changes hands and ties happen
    probs = rng.dirichlet(np.full(c, 0.7))
    y = rng.choice(c, size=n, p=probs)
    runs = rng.random(n) < 0.5
    y[1:][runs[1:]] = y[:-1][runs[1:]]
    return y


@pytest.mark.parametrize("c", [1, 2, 3, 5, 10])
@pytest.mark.parametrize("seed", range(6))
def test_majority_class_equals_the_loop(seed: int, c: int) -> None:
    y = _labels(seed, 400, c)
    counts = np.zeros(c, dtype=np.int64)
    assert_array_equal(majority_class_predictions(y, counts), majority_class_loop(y, c))
    assert_array_equal(counts, np.bincount(y, minlength=c))


@pytest.mark.parametrize("seed", range(6))
def test_majority_class_in_chunks_equals_one_call(seed: int) -> None:
    c = 4
    y = _labels(seed, 500, c)
    counts = np.zeros(c, dtype=np.int64)
    rng = np.random.default_rng(seed)
    cuts = np.sort(rng.choice(np.arange(1, y.size), size=7, replace=False))
    chunks = [majority_class_predictions(part, counts) for part in np.split(y, cuts)]
    assert_array_equal(np.concatenate(chunks), majority_class_loop(y, c))


def test_majority_class_ties_go_to_the_smallest_label() -> None:
    # 2, 2, 0, 0: after four samples 0 and 2 tie; 1 never occurs
    y = np.array([2, 2, 0, 0, 1, 1, 1])
    expected = [0, 2, 2, 2, 0, 0, 0]
    assert_array_equal(majority_class_predictions(y, np.zeros(3, dtype=np.int64)), expected)
    assert majority_class_loop(y, 3) == expected
    # from a state with a tie between 1 and 2 at 5 each
    counts = np.array([0, 5, 5], dtype=np.int64)
    assert_array_equal(majority_class_predictions(np.array([2, 1, 0]), counts), [1, 2, 1])


def test_majority_class_of_nothing() -> None:
    counts = np.zeros(3, dtype=np.int64)
    assert majority_class_predictions(np.zeros(0, dtype=np.int64), counts).size == 0
    assert_array_equal(counts, 0)


@pytest.mark.parametrize("seed", range(4))
def test_no_change_equals_the_loop_in_chunks(seed: int) -> None:
    y = _labels(seed, 300, 5)
    assert_array_equal(no_change_predictions(y, 0), no_change_loop(y))
    last, parts = 0, []
    for part in np.array_split(y, 7):
        parts.append(no_change_predictions(part, last))
        last = int(part[-1])
    assert_array_equal(np.concatenate(parts), no_change_loop(y))
    assert no_change_predictions(np.zeros(0, dtype=np.int64), 3).size == 0


def test_majority_class_refuses_labels_outside_the_counts() -> None:
    with pytest.raises(ValueError, match="labels must be in"):
        majority_class_predictions(np.array([0, 3]), np.zeros(3, dtype=np.int64))
    with pytest.raises(ValueError, match="int64"):
        majority_class_predictions(np.array([0, 1]), np.zeros(3, dtype=np.int32))
